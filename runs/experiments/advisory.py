"""Which judges the judges gate made advisory in an experiment's trials: shown on its page, the compare page, its
API record and its reports, so nobody reads a verdict as a judge's when that judge did not decide it."""

from __future__ import annotations

from django.db.models import Count

from runs.experiments.models import Experiment
from runs.models import ScoreResult


def advisory_judges(*, experiment: Experiment) -> dict[str, int]:
    """Judge name → how many of the experiment's trials it scored without deciding (it was not calibrated)."""
    return advisory_judges_of(experiments=[experiment]).get(experiment.pk, {})


def advisory_judges_of(*, experiments: list[Experiment]) -> dict[int, dict[str, int]]:
    """`advisory_judges` of several experiments in one query (the compare page's two sides), by experiment id."""
    rows = (
        ScoreResult.objects.filter(
            run__experiment__in=experiments, is_current=True, details__has_key="advisory_because"
        )
        .values("run__experiment_id", "scorer_name")
        .annotate(trials=Count("run", distinct=True))
        .order_by("scorer_name")
    )
    found: dict[int, dict[str, int]] = {}
    for row in rows:
        found.setdefault(row["run__experiment_id"], {})[row["scorer_name"]] = row["trials"]
    return found


def advisory_text(advisory: dict[str, int]) -> str:
    """ "Polite judge in 6 trials, Tone judge in 2": for pages and reports; "" when every judge decided."""
    return ", ".join(f"{name} in {trials} trial{'s' if trials != 1 else ''}" for name, trials in advisory.items())
