"""Each cell's stored metrics, recomputed from its runs when one of them finishes, is cancelled or is re-scored.

The worker's task, run_cancel, the stale-run reaper and re-scoring call `cells_refresh` with the runs they touched;
the pages then read the stored numbers and never aggregate runs (a constant number of queries per page).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from runs.events import publish as events
from runs.experiments.models import Experiment, ExperimentCell
from runs.experiments.stats import TrialCounts, mean_interval
from runs.models import Run
from runs.verdict import first_failed_stage

FINISHED = ("done", "error", "cancelled")
ROW_FIELDS = (
    "id",
    "status",
    "verdict",
    "failure_cause",
    "failure_reason",
    "stages",
    "self_judging",
    "score",
    "duration_ms",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "started_at",
    "trial",
)


def cell_metrics(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The metrics of one cell from its runs (dicts with ROW_FIELDS), as ExperimentCell field values.

    Pass counts, scores and everything the statistics read come from decided trials (verdict pass or fail);
    durations, tokens and cost from every trial with a verdict, inconclusive ones included (they were paid for).
    A re-run trial is its last run: the first, inconclusive one is replaced, not counted twice."""
    rows = list(rows)
    # A trial re-run after an inconclusive first run (runs.experiments.reruns) counts by its last run only.
    last = {row["trial"]: row for row in sorted(rows, key=lambda row: row["id"])}
    trials = [last[trial] for trial in sorted(last, key=lambda trial: trial or 0)]
    finished = [row for row in trials if row["status"] in FINISHED]
    judged = [row for row in finished if row["verdict"]]
    counts = TrialCounts.of(row["verdict"] for row in judged)
    decided = [row for row in judged if row["verdict"] in ("pass", "fail")]
    scores = [row["score"] for row in decided if row["score"] is not None]
    durations = sorted(row["duration_ms"] for row in judged if row["duration_ms"] is not None)
    interval = mean_interval(scores) if scores else None
    started = [row for row in judged if row["started_at"] is not None]
    costs = [row["cost_usd"] for row in started]
    failing = [row for row in judged if row["verdict"] == "fail"]
    unsettled = [row for row in judged if row["verdict"] == "inconclusive"]
    return {
        "finished": len(finished),
        "reruns": len(rows) - len(trials),
        "counted": counts.decided,
        "passes": counts.passed,
        "inconclusive": counts.inconclusive,
        "errors": sum(row["status"] == "error" for row in judged),
        "failure_causes": dict(Counter(row["failure_cause"] for row in [*failing, *unsettled] if row["failure_cause"])),
        "failed_stages": dict(Counter(stage for row in failing if (stage := first_failed_stage(row["stages"] or [])))),
        "self_judging": any(row["self_judging"] for row in judged),
        "score_mean": interval.mean if interval else None,
        "score_low": interval.low if interval else None,
        "score_high": interval.high if interval else None,
        "durations_ms": durations,
        "tokens_mean": (
            sum(row["input_tokens"] + row["output_tokens"] for row in started) / len(started) if started else None
        ),
        # One unknown price makes the total unknown, as for a run's own cost.
        "cost_usd": None if None in costs else sum(costs, Decimal(0)),
        "failure": next((row["failure_reason"] for row in [*failing, *unsettled] if row["failure_reason"]), ""),
    }


def cells_refresh(*, run_ids: Iterable[int] = (), cell_ids: Iterable[int] = ()) -> None:
    """Recompute the cells these runs belong to (and these cells), then their experiments' progress."""
    wanted = set(cell_ids)
    run_ids = list(run_ids)
    if run_ids:
        wanted |= set(Run.objects.filter(pk__in=run_ids, cell__isnull=False).values_list("cell_id", flat=True))
    for cell_id in sorted(wanted):
        _refresh_cell(cell_id)
    for experiment_id in sorted(
        set(ExperimentCell.objects.filter(pk__in=wanted).values_list("experiment_id", flat=True))
    ):
        experiment_refresh_progress(experiment_id=experiment_id)


def _refresh_cell(cell_id: int) -> None:
    # Locked: two trials of one cell finishing together on two workers must not overwrite each other's count.
    # Whoever takes the lock second reads the runs after the first committed, so the last refresh sees every run.
    with transaction.atomic():
        cell = ExperimentCell.objects.select_for_update().filter(pk=cell_id).first()
        if cell is None:
            return
        metrics = cell_metrics(Run.objects.filter(cell_id=cell_id).values(*ROW_FIELDS))
        for name, value in metrics.items():
            setattr(cell, name, value)
        cell.save(update_fields=[*metrics, "updated_at"])


def experiment_refresh_progress(*, experiment_id: int) -> None:
    """Finished runs out of all, and the status: done once every run has finished (cancelled stays cancelled)."""
    with transaction.atomic():
        experiment = Experiment.objects.select_for_update().filter(pk=experiment_id).first()
        if experiment is None:
            return
        finished = experiment.cells.aggregate(total=Sum("finished"))["total"] or 0
        experiment.finished_runs = finished
        if finished >= experiment.total_runs and experiment.status == Experiment.Status.RUNNING:
            experiment.status = Experiment.Status.DONE
            experiment.finished_at = timezone.now()
        experiment.save(update_fields=["finished_runs", "status", "finished_at", "updated_at"])
        events.experiment_progress(experiment)
