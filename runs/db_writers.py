"""The worker's database writer threads: the agent loop is async and Django's ORM is not, so a run's records are
written on these threads (runs/recorder.py)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

from django.db import connection

T = TypeVar("T")

# Every run of a worker process writes through these threads (a run always through the same one, so its writes
# stay in order), each with its own database connection: a worker carrying 50 runs at once holds at most
# WRITER_THREADS connections for their records, not 50.
WRITER_THREADS = 4


class _Writer:
    """A thread that runs database writes one after another; it keeps its connection while writes keep coming and
    closes it when it has nothing left to do, so an idle worker holds none (and a test database can be dropped)."""

    def __init__(self, index: int) -> None:
        self._queue: queue.SimpleQueue[tuple[Future[Any], Callable[[], Any]]] = queue.SimpleQueue()
        self._name = f"evalhub-db-writer-{index}"
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def submit(self, work: Callable[[], T]) -> Future[T]:
        future: Future[T] = Future()
        self._queue.put((future, work))
        with self._lock:
            # Started on first use, in the process that runs runs: a prefork pool forks its children from a
            # parent that never records anything, and threads do not survive a fork.
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
                self._thread.start()
        return future

    def _loop(self) -> None:
        while True:
            future, work = self._queue.get()
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(work())
                except BaseException as exc:
                    # The connection may be broken (database restarted); the next write opens a new one.
                    connection.close()
                    future.set_exception(exc)
            if self._queue.empty():
                connection.close()


_WRITERS = [_Writer(index) for index in range(WRITER_THREADS)]


def writer_for(run_id: int) -> _Writer:
    """The thread that writes this run's records: always the same one, so they stay in order."""
    return _WRITERS[run_id % WRITER_THREADS]
