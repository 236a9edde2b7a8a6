"""Which judges the judges gate made advisory in an experiment's trials: shown on its page, the compare page, its
API record and its reports, so nobody reads a verdict as a judge's when that judge did not decide it."""

from __future__ import annotations

from django.db.models import Count

from runs.experiments.models import Experiment
from runs.models import ScoreResult


def advisory_judges(*, experiment: Experiment) -> dict[str, int]:
    """Judge name → how many of the experiment's trials it scored without deciding (it was not calibrated)."""
    rows = (
        ScoreResult.objects.filter(run__experiment=experiment, is_current=True, details__has_key="advisory_because")
        .values("scorer_name")
        .annotate(trials=Count("run", distinct=True))
        .order_by("scorer_name")
    )
    return {row["scorer_name"]: row["trials"] for row in rows}


def advisory_text(advisory: dict[str, int]) -> str:
    """ "Polite judge in 6 trials, Tone judge in 2": for pages and reports; "" when every judge decided."""
    return ", ".join(f"{name} in {trials} trial{'s' if trials != 1 else ''}" for name, trials in advisory.items())
