"""Writing events: one call where each thing happens (starting runs and experiments, claim, the recorder, the
worker's task, the reaper, cancelling, the quota), each saying only what a watcher needs: ids, names, numbers.
Never arguments, results or prompts: those stay on the run page, behind the run's own rules.

An event that cannot be written is logged and dropped: the stream is a notice, the run's own row is the truth, and
a run must never fail because its notice could not be sent.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from runs.costs import with_judge_cost
from runs.events.models import RunEvent
from runs.experiments.models import Experiment
from runs.models import Run

if TYPE_CHECKING:
    from runs.quota import QuotaStatus

logger = logging.getLogger(__name__)

# Old events are deleted each time the id passes a multiple of this: one DELETE per PRUNE_EVERY events.
PRUNE_EVERY = 500


def publish(events: Iterable[RunEvent]) -> None:
    rows = list(events)
    if not rows:
        return
    try:
        # A savepoint: a failed insert inside someone's transaction must not break the rest of it.
        with transaction.atomic():
            created = RunEvent.objects.bulk_create(rows)
            _prune([row.pk for row in created if row.pk is not None])
    except Exception:
        logger.exception("Could not record %d event(s) (%s); watchers will miss them.", len(rows), rows[0].type)


class _AtCommit:
    """The events of one transaction, written together once it commits: one write for an experiment's hundreds of
    queued runs, and only the last quota.changed of it."""

    def __init__(self) -> None:
        self.events: list[RunEvent] = []

    def flush(self) -> None:
        last_quota = max((i for i, e in enumerate(self.events) if e.type == "quota.changed"), default=None)
        publish(e for i, e in enumerate(self.events) if e.type != "quota.changed" or i == last_quota)


_pending = threading.local()


def publish_at_commit(events: Iterable[RunEvent]) -> None:
    """Publish once the current transaction commits; never if it rolls back (its runs were never queued)."""
    connection = transaction.get_connection()
    if not connection.in_atomic_block:
        publish(events)
        return
    batch: _AtCommit | None = getattr(_pending, "batch", None)
    # Django drops a transaction's on-commit callbacks when it rolls back: a batch whose flush is no longer among
    # them belonged to a transaction that is over, and must not carry its events into this one.
    if batch is None or not any(callback == batch.flush for _, callback, _ in connection.run_on_commit):
        batch = _pending.batch = _AtCommit()
        transaction.on_commit(batch.flush)
    batch.events.extend(events)


def _prune(ids: list[int]) -> None:
    if ids and max(ids) // PRUNE_EVERY != (min(ids) - 1) // PRUNE_EVERY:
        RunEvent.objects.filter(pk__lte=max(ids) - settings.EVALHUB_EVENTS_KEPT).delete()


def _event(type_: str, data: dict[str, Any], *, run: Run | None = None, experiment_id: int | None = None) -> RunEvent:
    if run is not None:
        # The scenario too: a list of scenarios refreshes only the row of the run's scenario.
        ids = {"run_id": run.pk, "scenario_id": run.scenario_id}
        data = {**ids, **({"experiment_id": run.experiment_id} if run.experiment_id else {}), **data}
        experiment_id = run.experiment_id
    return RunEvent(
        type=type_,
        run_id=run.pk if run is not None else None,
        experiment_id=experiment_id,
        data={**data, "timestamp": timezone.now().isoformat()},
    )


def runs_queued(runs: list[Run]) -> None:
    """Sent once the runs' transaction commits, as their tasks are (a rolled-back run was never queued), in one
    write: an experiment queues hundreds at once."""
    queued = [
        _event(
            "run.queued",
            {
                "scenario_name": run.scenario.name,
                "model": run.model,
                "trial": run.trial,
            },
            run=run,
        )
        for run in runs
    ]
    publish_at_commit(queued)


def run_started(run: Run) -> None:
    assert run.started_at is not None
    waited = (run.started_at - run.created_at).total_seconds() * 1000
    publish([_event("run.started", {"worker": run.worker, "queued_ms": round(waited)}, run=run)])


def run_step(run: Run, step: dict[str, Any]) -> None:
    """A model answered or a tool was called: `step` has `kind` ("model", "tool" or "user") and its numbers."""
    publish([_event("run.step", step, run=run)])


def runs_finished(run_ids: Iterable[int], *, rescored: bool = False) -> None:
    """`run.finished` for each of these runs that has finished (`run.scored` after a re-score), with its verdict."""
    runs = with_judge_cost(Run.objects.filter(pk__in=list(run_ids), status__in=Run.FINISHED)).order_by("pk")
    publish(
        _event("run.scored" if rescored else "run.finished", _verdict(run), run=run)
        for run in runs.only(
            "pk",
            "scenario_id",
            "experiment_id",
            "status",
            "stop_reason",
            "score",
            "passed",
            "verdict",
            "failure_cause",
            "stages",
            "cost_usd",
            "duration_ms",
            "error",
            "settings",
        )
    )


def _verdict(run: Run) -> dict[str, Any]:
    judge_usd = getattr(run, "judge_usd", None)
    unpriced = run.cost_usd is None or bool(getattr(run, "judge_unpriced", 0))
    return {
        "status": run.status,
        "stop_reason": run.stop_reason,
        "score": run.score,
        "passed": run.passed,
        # The cause and the stage, never the reason: events carry names and numbers, no tool or model text.
        "verdict": run.verdict,
        "failure_cause": run.failure_cause,
        "failed_stage": next((s["stage"] for s in run.stages if s.get("state") in ("failed", "undecided")), ""),
        "pass_threshold": run.threshold,
        "cost_usd": float(run.cost_usd) if run.cost_usd is not None else None,
        "judge_cost_usd": float(judge_usd) if judge_usd is not None else None,
        "total_cost_usd": None if unpriced else float(run.cost_usd + (judge_usd or 0)),  # type: ignore[operator]
        "duration_ms": run.duration_ms,
        "error": run.error,
    }


def experiment_progress(experiment: Experiment) -> None:
    total = experiment.total_runs
    publish(
        [
            _event(
                "experiment.progress",
                {
                    "experiment_id": experiment.pk,
                    "status": experiment.status,
                    "finished": experiment.finished_runs,
                    "total": total,
                    "percentage": round(100 * experiment.finished_runs / total, 1) if total else 100.0,
                },
                experiment_id=experiment.pk,
            )
        ]
    )


def quota_changed(status: QuotaStatus) -> None:
    """The quota as a reservation left it; sent once the reservation commits (a rolled-back one changed nothing)."""
    data = {
        "used": status.used,
        "limit": status.limit,
        "remaining": status.remaining,
        "resets_at": status.resets_at.isoformat(),
    }
    publish_at_commit([_event("quota.changed", data)])


def run_reviewed(run: Run, *, reviews: int) -> None:
    """Someone reviewed a run (or deleted a review): its verdict now, the human one, and how many reviews it has.

    Never the automatic verdict, the score, a scorer's reason or the note: a reviewer in blind mode may be
    watching, and the note is text a person wrote about the run, which stays behind the run's page."""
    data = {"verdict": run.verdict, "passed": run.passed, "human_verdict": run.human_verdict, "reviews": reviews}
    publish_at_commit([_event("run.reviewed", data, run=run)])
