"""Tasks of the core app. Tasks stay thin: they take ids or plain values and call model methods or services."""

from __future__ import annotations

from celery import Task, shared_task

from evalhub.models import WorkerHeartbeat


@shared_task(bind=True, name="evalhub.ping_worker")
def ping_worker(self: Task) -> str:
    """Record that a worker is alive; the CLI and health page use this to tell "no worker" from "slow worker"."""
    hostname = self.request.hostname or "unknown"
    WorkerHeartbeat.record(hostname)
    return hostname


# Registered with the worker through this app's tasks module (Celery autodiscovers `<app>.tasks`).
from evalhub.checkups.tasks import execute_checkup  # noqa: E402

__all__ = ["execute_checkup", "ping_worker"]
