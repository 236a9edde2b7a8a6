"""The sentences a run page says about its verdict and its reviews. Pure: no Django, plain values in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class ScorerLine:
    name: str
    passed: bool | None
    gating: bool


@dataclass(frozen=True)
class ReviewLine:
    reviewer: str
    verdict: str
    note: str


def judged_by(auto_verdict: str, scorers: Sequence[ScorerLine], cause: str = "") -> str:
    """Who decided the automatic verdict: the gating scorers that failed a failed run, those that passed a passed
    one; the cause when no scorer decided (a server that crashed fails the run before any scorer)."""
    gating = [s for s in scorers if s.gating]
    if auto_verdict == "pass":
        names = [s.name for s in gating if s.passed]
    elif auto_verdict == "fail":
        names = [s.name for s in gating if s.passed is False]
    else:
        names = [s.name for s in gating if s.passed is None]
    if names:
        return f"Judged {auto_verdict} by {_join(names)}"
    return f"Judged {auto_verdict}" + (f" ({cause})" if cause else "")


def verdict_sentence(
    auto_verdict: str, scorers: Sequence[ScorerLine], reviews: Sequence[ReviewLine], cause: str
) -> str:
    """ "Judged pass by Restraint judge; reviewed fail by alice: “asked nothing before booking”"."""
    parts = [judged_by(auto_verdict, scorers, cause)]
    for review in reviews:
        note = f": “{review.note}”" if review.note else ""
        parts.append(f"reviewed {review.verdict} by {review.reviewer}{note}")
    return "; ".join(parts)


def _join(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
