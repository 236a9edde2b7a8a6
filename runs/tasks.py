from __future__ import annotations

from celery import Task, shared_task
from celery.signals import worker_ready

from runs import heartbeat, pipeline, scoring
from runs.experiments.metrics import cells_refresh
from runs.models import Run


@shared_task(bind=True, name="runs.execute_run")
def execute_run(self: Task, run_id: int) -> None:
    pipeline.execute_run(run_id, worker=self.request.hostname or "unknown")
    cells_refresh(run_ids=[run_id])


@worker_ready.connect
def reap_stale_runs_on_start(**_: object) -> None:
    """A worker that starts after a crash finds the runs the dead one left "running" and closes them."""
    heartbeat.runs_reap_stale()


@shared_task(name="runs.rescore_runs")
def rescore_runs(run_ids: list[int]) -> None:
    """Score finished runs again with their scenarios' current scorers (the older results stay in history)."""
    for run in Run.objects.filter(pk__in=run_ids, status=Run.Status.DONE).select_related("scenario"):
        scoring.score_run(run)
    cells_refresh(run_ids=run_ids)
