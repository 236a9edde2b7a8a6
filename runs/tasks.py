from __future__ import annotations

from celery import Task, shared_task
from celery.signals import worker_ready

from runs import heartbeat, pipeline


@shared_task(bind=True, name="runs.execute_run")
def execute_run(self: Task, run_id: int) -> None:
    pipeline.execute_run(run_id, worker=self.request.hostname or "unknown")


@worker_ready.connect
def reap_stale_runs_on_start(**_: object) -> None:
    """A worker that starts after a crash finds the runs the dead one left "running" and closes them."""
    heartbeat.runs_reap_stale()
