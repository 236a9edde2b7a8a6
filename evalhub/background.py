"""A small bounded pool of threads in the web process, for slow calls a page must not wait on (Inspect, Test).

A request hands the slow call over with `run_bounded`, waits at most a few seconds for it, and answers either
with the outcome or with "still working" (the page then polls, and the pool thread records the outcome itself).

Why not the Celery worker: `make run`'s worker has two processes, which a couple of runs keep busy for minutes,
and the filesystem broker adds its polling delay; an Inspect pressed right after registering a server would wait
behind them, or forever when no worker is running. Why threads: an inspection or a provider test is I/O and a
child process, not Python work; threads run them beside the request threads of `runserver` and of gunicorn's
sync workers alike, and outcomes go to the database, so any web process can answer the polling. The cost: a
web process that stops takes its calls with it; their records expire (see `McpServer.inspection_state`).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Generic, TypeVar

from django.db import connections

log = logging.getLogger(__name__)

T = TypeVar("T")

THREADS = 4
# Calls accepted beyond the running ones; more are refused at once rather than queued for minutes.
QUEUED = 16


class Busy(Exception):
    """The pool is full: the caller says so and nothing was started."""


@dataclass(frozen=True)
class Outcome(Generic[T]):
    """What the slow call returned, or the exception it raised."""

    value: T | None = None
    error: Exception | None = None

    def get(self) -> T:
        if self.error is not None:
            raise self.error
        return self.value  # type: ignore[return-value]


class _Handoff(Generic[T]):
    """Who records the outcome: the waiting request if it arrives in time, else the pool thread. Never both."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._outcome: Outcome[T] | None = None
        self._abandoned = False

    def deliver(self, outcome: Outcome[T]) -> bool:
        """The pool thread's side: True when the request takes the outcome."""
        with self._lock:
            self._outcome = outcome
            self._done.set()
            return not self._abandoned

    def collect(self, seconds: float) -> Outcome[T] | None:
        """The request's side: the outcome, or None (and the pool thread records it) after `seconds`."""
        self._done.wait(seconds)
        with self._lock:
            if self._outcome is None:
                self._abandoned = True
            return self._outcome


_lock = threading.Lock()
_accepted = 0
_executor: ThreadPoolExecutor | None = None


def run_bounded(call: Callable[[], T], *, wait: float, late: Callable[[Outcome[T]], None]) -> Outcome[T] | None:
    """Run `call` on the pool; return its outcome if it ends within `wait` seconds, else None.

    When it ends later, `late(outcome)` runs on the pool thread (with its own database connection, closed
    afterwards). Raises Busy when THREADS + QUEUED calls are already accepted.
    """
    global _accepted, _executor
    with _lock:
        if _accepted >= THREADS + QUEUED:
            raise Busy(f"EvalHub is already running {_accepted} inspections and tests; try again in a moment.")
        _accepted += 1
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="evalhub-background")
        executor = _executor
    handoff: _Handoff[T] = _Handoff()
    executor.submit(_work, call, handoff, late)
    return handoff.collect(wait)


def _work(call: Callable[[], T], handoff: _Handoff[T], late: Callable[[Outcome[T]], None]) -> None:
    global _accepted
    try:
        try:
            outcome: Outcome[T] = Outcome(value=call())
        except Exception as exc:
            outcome = Outcome(error=exc)
        if not handoff.deliver(outcome):
            try:
                late(outcome)
            except Exception:
                log.exception("Recording the outcome of a background call failed")
            finally:
                connections.close_all()
    finally:
        with _lock:
            _accepted -= 1
