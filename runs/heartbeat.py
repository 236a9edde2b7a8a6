"""How a running run proves its worker is alive: a timestamp the worker refreshes while it executes."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

from django.db import connection
from django.utils import timezone

from runs.experiments.metrics import cells_refresh
from runs.models import Run

# The worker beats every BEAT_SECONDS; a run silent for STALE_AFTER has lost its worker (killed, machine gone).
BEAT_SECONDS = 10.0
STALE_AFTER = timedelta(seconds=60)


def beat(run_id: int) -> None:
    Run.objects.filter(pk=run_id, status=Run.Status.RUNNING).update(heartbeat_at=timezone.now())


@contextmanager
def beating(run_id: int) -> Iterator[None]:
    """Beat from a side thread while the body runs, so long model or tool calls don't look like a dead worker."""
    stop = threading.Event()

    def loop() -> None:
        try:
            while not stop.wait(BEAT_SECONDS):
                beat(run_id)
        finally:
            connection.close()

    thread = threading.Thread(target=loop, name=f"heartbeat-run-{run_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def runs_reap_stale(now: datetime | None = None) -> int:
    """Mark runs whose worker stopped beating as failed, so nothing stays "running" forever."""
    now = now or timezone.now()
    reaped = Run.objects.filter(status=Run.Status.RUNNING, heartbeat_at__lt=now - STALE_AFTER).update(
        status=Run.Status.ERROR,
        stop_reason=Run.StopReason.ERROR,
        finished_at=now,
        passed=False,
        error={"step": "worker", "kind": "worker_lost", "message": "worker lost: it stopped while running this run"},
    )
    if reaped:
        # The rows just reaped are the ones finished at exactly `now` by a lost worker.
        lost = Run.objects.filter(finished_at=now, error__kind="worker_lost", cell__isnull=False)
        cells_refresh(cell_ids=lost.values_list("cell_id", flat=True))
    return reaped
