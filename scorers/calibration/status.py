"""A scorer version's calibration status from its figures. Pure: no Django.

- `calibrated`: at least `min_reviews` reviewed runs, and Cohen's κ against people at least `min_kappa`;
- `disagrees`: enough reviews, and κ below `min_kappa` (or undefined: people and the scorer each gave one and the
  same verdict to every run, so the reviews cannot show that it judges rather than always answers the same);
- `stale`: too few reviews of this version, but an older version (other code, prompt, labels, judge model or
  expectations) had enough: the reviews vouch for what the scorer was, not for what it is;
- `uncalibrated`: too few reviews, of this version or any before it.
Only `calibrated` lets a judge decide a run's verdict when the gate asks for calibrated judges.
"""

from __future__ import annotations

STATUSES = ("uncalibrated", "calibrated", "disagrees", "stale")


def calibration_status(
    *, reviewed: int, kappa: float | None, older_reviewed: int, min_reviews: int, min_kappa: float
) -> str:
    """`older_reviewed`: the most reviews any earlier version of the same scorer had."""
    if reviewed >= min_reviews:
        return "calibrated" if kappa is not None and kappa >= min_kappa else "disagrees"
    if older_reviewed >= min_reviews:
        return "stale"
    return "uncalibrated"
