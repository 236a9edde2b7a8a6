from __future__ import annotations

from celery import Task, shared_task
from celery.signals import worker_process_shutdown, worker_ready, worker_shutdown
from celery.worker.consumer import Consumer
from django.utils import timezone

from evalhub.mcp_client.warm_pool import WARM_POOL
from runs import housekeeping, pipeline, scoring
from runs.events import publish as events
from runs.experiments.metrics import cells_refresh
from runs.experiments.reruns import trials_rerun_inconclusive
from runs.models import Run
from runs.traces.export import push_run_trace


@shared_task(bind=True, name="runs.execute_run")
def execute_run(self: Task, run_id: int) -> None:
    run = pipeline.execute_run(run_id, worker=self.request.hostname or "unknown")
    if run is not None:
        events.runs_finished([run_id])
        # After the run is saved and announced: a slow or failing collector delays only the worker's next task.
        push_run_trace(run)
        # Only an experiment's trial is re-run or counted in a cell, and a run's cell never changes: a run of none
        # skips their queries (issue 30: the worker's CPU per run).
        if run.cell_id is None:
            return
        trials_rerun_inconclusive(run_ids=[run_id])
    cells_refresh(run_ids=[run_id])


@worker_ready.connect
def start_housekeeping(sender: Consumer, **_: object) -> None:
    """Sent once, before the worker takes its first task: close what a crashed predecessor left, then keep
    reaping, killing leftover servers and recording the worker's liveness on a schedule (runs/housekeeping.py)."""
    housekeeping.worker_started(hostname=sender.hostname, started_at=timezone.now())
    housekeeping.start(hostname=sender.hostname)


@worker_shutdown.connect
@worker_process_shutdown.connect
def close_warm_servers(**_: object) -> None:
    """The worker (or one of its pool's processes) is stopping: stop the warm stdio servers it kept (warm_pool.py)."""
    WARM_POOL.close()


@shared_task(name="runs.rescore_runs")
def rescore_runs(run_ids: list[int]) -> None:
    """Score finished runs again with their scenarios' current scorers (the older results stay in history)."""
    for run in Run.objects.filter(pk__in=run_ids, status=Run.Status.DONE).select_related("scenario"):
        started = timezone.now()
        scoring.score_run(run, rescoring=True)
        # A re-score requested while this one ran keeps its mark: its own task clears it.
        Run.objects.filter(pk=run.pk, rescore_requested_at__lte=started).update(rescore_requested_at=None)
    # A run that is no longer done is not re-scored; its page must not wait for it.
    Run.objects.filter(pk__in=run_ids).exclude(status=Run.Status.DONE).update(rescore_requested_at=None)
    events.runs_finished(run_ids, rescored=True)
    cells_refresh(run_ids=run_ids)
