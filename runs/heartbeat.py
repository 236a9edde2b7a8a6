"""How a running run proves its worker is alive, and how runs of a dead worker are closed.

The worker refreshes `heartbeat_at` from one side thread, for all its runs, during every phase of a run
(connecting, model and tool calls, scoring). A run silent for STALE_AFTER has lost its worker; so has a run its
own worker was running when that worker restarted. Both are closed by the conditional UPDATE of
`Run.save_if_running`'s kind: a run is reaped only while it is still running, and a worker that wakes up later
finds it ended and stops (see runs/pipeline.py).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta

from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone

from runs.events import publish as events
from runs.experiments.metrics import cells_refresh
from runs.experiments.reruns import trials_rerun_inconclusive
from runs.models import Run
from runs.run_verdict import VERDICT_FIELDS, apply_verdict

logger = logging.getLogger(__name__)

# The worker beats every BEAT_SECONDS; a run silent for STALE_AFTER has lost its worker (killed, machine gone).
BEAT_SECONDS = 10.0
STALE_AFTER = timedelta(seconds=60)


def beat(*run_ids: int) -> None:
    Run.objects.filter(pk__in=run_ids, status=Run.Status.RUNNING).update(heartbeat_at=timezone.now())


class _Beater:
    """One side thread per worker process beats every run in flight with one UPDATE.

    One thread (and one database connection) per process rather than per run: a worker carrying 50 runs at once
    would otherwise hold 50 idle connections just to say it is alive.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: set[int] = set()
        self._thread: threading.Thread | None = None

    def add(self, run_id: int) -> None:
        with self._lock:
            self._runs.add(run_id)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="evalhub-heartbeat", daemon=True)
                self._thread.start()

    def remove(self, run_id: int) -> None:
        with self._lock:
            self._runs.discard(run_id)

    def _loop(self) -> None:
        while True:
            time.sleep(BEAT_SECONDS)
            with self._lock:
                run_ids = tuple(self._runs)
            if not run_ids:
                continue
            try:
                beat(*run_ids)
            except Exception:
                # The database may be down for a while; the next beat tries again.
                logger.exception("Beating %s run(s) failed; retrying in %s s.", len(run_ids), BEAT_SECONDS)
            finally:
                # One connection every BEAT_SECONDS is cheap; one held between beats would outlive every run.
                connection.close()


_beater = _Beater()


@contextmanager
def beating(run_id: int) -> Iterator[None]:
    """Beat while the body runs, so long model or tool calls don't look like a dead worker."""
    _beater.add(run_id)
    try:
        yield
    finally:
        _beater.remove(run_id)


def lost_error(phase: str, why: str) -> dict[str, str]:
    """The error of a run whose worker was lost. Said plainly: the quota slot is spent and nothing re-runs it."""
    return {
        "step": phase or "worker",
        "kind": "worker_lost",
        "message": (
            f"worker lost: {why} during “{phase or 'start'}”. The run used one of today's quota runs and is not "
            "retried automatically, because its tool calls may already have had effects; use Run again to start "
            "a new run."
        ),
    }


def _reap(runs: QuerySet[Run], *, now: datetime, why: Callable[[Run], str]) -> int:
    """Close each of `runs` (a queryset of running runs) as lost, each only if it still matches `runs`."""
    reaped: list[int] = []
    for run in runs.only("pk", "phase", "heartbeat_at"):
        lost = Run(status=Run.Status.ERROR, error=lost_error(run.phase, why(run)), phase=run.phase)
        apply_verdict(lost)  # inconclusive: a lost worker says nothing about the agent or the server
        # The same conditions again in the UPDATE: a run that beat, or ended, since the SELECT is left alone.
        if runs.filter(pk=run.pk).update(
            status=Run.Status.ERROR,
            stop_reason=Run.StopReason.ERROR,
            finished_at=now,
            error=lost.error,
            **{name: getattr(lost, name) for name in VERDICT_FIELDS},
        ):
            reaped.append(run.pk)
    if reaped:
        events.runs_finished(reaped)
        trials_rerun_inconclusive(run_ids=reaped)
        cells_refresh(run_ids=reaped)  # an experiment's matrix counts a lost trial as soon as it is closed
    return len(reaped)


def runs_reap_stale(now: datetime | None = None) -> int:
    """Mark runs whose worker stopped beating as failed, so nothing stays "running" forever."""
    now = now or timezone.now()
    stale = Run.objects.filter(status=Run.Status.RUNNING, heartbeat_at__lt=now - STALE_AFTER)
    return _reap(stale, now=now, why=_silent_since)


def _silent_since(run: Run) -> str:
    assert run.heartbeat_at is not None  # the filter compared it
    return f"its worker stopped (no heartbeat since {run.heartbeat_at.astimezone(UTC):%H:%M:%S} UTC)"


def runs_reap_orphans(*, worker: str, started_at: datetime) -> int:
    """Close the runs a worker's predecessor of the same name left running: a worker starting at `started_at`
    cannot be running runs claimed before it, so whoever claimed them died (killed, machine restarted).

    This closes them at once rather than STALE_AFTER later. Celery requires worker names to be unique (`-n`),
    so a run claimed under this name belongs to this worker or to a dead one.
    """
    orphans = Run.objects.filter(status=Run.Status.RUNNING, worker=worker, started_at__lt=started_at)
    return _reap(orphans, now=timezone.now(), why=lambda _: f"its worker {worker} was restarted")
