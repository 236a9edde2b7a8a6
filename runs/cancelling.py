"""How a cancel reaches a run in the middle of a step: a slow tool call or a long model answer.

`run_cancel` (runs/services.py) only sets `cancel_requested` on a running run; its worker has to notice. The agent
loop looks between steps, but one step may last minutes, and a user who pressed Cancel expects the run to stop now.
So the worker also watches: one side thread per worker process asks every POLL_SECONDS which of its runs in flight
were asked to stop (one query for all of them) and calls each one's `on_cancel`, which cancels the run's act step
(runs/pipeline.py). The run then ends cancelled with what it recorded, the call that was cut off included.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import connection

from runs.models import Run

logger = logging.getLogger(__name__)

# A cancelled run stops within about this long (plus closing its server), whatever its current step is doing.
POLL_SECONDS = 0.5


class _Watcher:
    """One side thread per worker process, as the heartbeat's: 50 runs in flight cost one query per poll."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[int, Callable[[], None]] = {}
        self._thread: threading.Thread | None = None

    def add(self, run_id: int, on_cancel: Callable[[], None]) -> None:
        with self._lock:
            self._runs[run_id] = on_cancel
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="evalhub-cancel-watch", daemon=True)
                self._thread.start()

    def remove(self, run_id: int) -> None:
        with self._lock:
            self._runs.pop(run_id, None)

    def _loop(self) -> None:
        while True:
            time.sleep(POLL_SECONDS)
            with self._lock:
                run_ids = tuple(self._runs)
            if not run_ids:
                # Idle: hold no connection between runs (a test database can be dropped, PostgreSQL slots freed).
                connection.close()
                continue
            try:
                asked = list(Run.objects.filter(pk__in=run_ids, cancel_requested=True).values_list("pk", flat=True))
            except Exception:
                # The database may be down for a while; the step boundaries still see the cancel once it is back.
                logger.exception("Looking for cancelled runs among %s failed; retrying.", len(run_ids))
                connection.close()
                continue
            for run_id in asked:
                with self._lock:
                    on_cancel = self._runs.pop(run_id, None)
                if on_cancel is None:
                    continue  # it ended meanwhile
                try:
                    on_cancel()
                except Exception:
                    # The run's event loop has just finished (the run ended as the cancel came): nothing to stop.
                    logger.info("Run %s ended before its cancel reached it.", run_id, exc_info=True)


_watcher = _Watcher()


@contextmanager
def watching(run_id: int, on_cancel: Callable[[], None]) -> Iterator[None]:
    """Call `on_cancel` (from the watcher's thread, once) if the run is asked to stop while the body runs."""
    _watcher.add(run_id, on_cancel)
    try:
        yield
    finally:
        _watcher.remove(run_id)
