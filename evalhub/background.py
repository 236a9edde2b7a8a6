"""A small bounded pool of threads in the web process, for slow calls a page must not wait on (Inspect, Test).

A request hands the slow call over with `run_bounded`, waits at most a few seconds for it, and answers either
with the outcome or with "still working" (the page then polls, and the pool thread records the outcome itself).

Why not the Celery worker: `make run`'s worker has two processes, which a couple of runs keep busy for minutes,
and the filesystem broker adds its polling delay; an Inspect pressed right after registering a server would wait
behind them, or forever when no worker is running. Why threads: an inspection or a provider test is I/O and a
child process, not Python work; threads run them beside the request threads of `runserver` and of gunicorn's
sync workers alike, and outcomes go to the database, so any web process can answer the polling. The cost: a
web process that stops takes its calls with it; their records expire (see `McpServer.inspection_state`).

Each call belongs to a user, and one user holds at most EVALHUB_BACKGROUND_SLOTS_PER_USER of the pool's
THREADS + QUEUED places at once (half by default), so one user's slow servers cannot refuse everyone else's Inspect
and Test. A place is held until the call ends, not until the request answers: a 600 s connect counts all along.

A call to a stdio server starts its command on this host, whoever asked (staff registered it for everyone to use):
at most EVALHUB_WEB_STDIO_PROCESSES such calls are accepted at once per web process, the request's own (a re-sync's
inspection, through `stdio_place`) included; more are refused at once, saying so.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from collections.abc import Callable, Hashable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Generic, TypeVar

from django.conf import settings
from django.db import connections

log = logging.getLogger(__name__)

T = TypeVar("T")

THREADS = 4
# Calls accepted beyond the running ones; more are refused at once rather than queued for minutes.
QUEUED = 16


class Busy(Exception):
    """The pool, or the caller's share of it, is full: the caller says so (429) and nothing was started."""


def _stdio_busy(running: int) -> Busy:
    limit = settings.EVALHUB_WEB_STDIO_PROCESSES
    return Busy(
        f"EvalHub's web host is already running {running} stdio servers, its limit (EVALHUB_WEB_STDIO_PROCESSES = "
        f"{limit}): each Inspect or tool test of a stdio server starts its command here. Try again when one ends "
        "(at most its server's connect timeout)."
    )


def slots_per_user() -> int:
    """How many calls one user may have in the pool at once: EVALHUB_BACKGROUND_SLOTS_PER_USER, else half."""
    return settings.EVALHUB_BACKGROUND_SLOTS_PER_USER or (THREADS + QUEUED) // 2


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
# Calls accepted per owner (a user's id), held until each call ends.
_owners: Counter[Hashable] = Counter()
# Calls that run a stdio server's command on this host, accepted or running in a request.
_stdio = 0
_executor: ThreadPoolExecutor | None = None


@contextmanager
def stdio_place(stdio: bool) -> Iterator[None]:
    """Hold one of this web process's stdio places while a request itself runs a stdio server; raises Busy."""
    global _stdio
    with _lock:
        if stdio and _stdio >= settings.EVALHUB_WEB_STDIO_PROCESSES:
            raise _stdio_busy(_stdio)
        _stdio += stdio
    try:
        yield
    finally:
        with _lock:
            _stdio -= stdio


def run_bounded(
    call: Callable[[], T],
    *,
    wait: float,
    late: Callable[[Outcome[T]], None],
    owner: Hashable,
    stdio: bool = False,
) -> Outcome[T] | None:
    """Run `call` on the pool for `owner` (a user's id); return its outcome if it ends within `wait` seconds,
    else None.

    When it ends later, `late(outcome)` runs on the pool thread (with its own database connection, closed
    afterwards). Raises Busy when THREADS + QUEUED calls are already accepted, or `owner` already has their share,
    or, for a call that starts a `stdio` server, when EVALHUB_WEB_STDIO_PROCESSES are already.
    """
    global _accepted, _executor, _stdio
    share = slots_per_user()
    with _lock:
        if _owners[owner] >= share:
            raise Busy(
                f"You already have {_owners[owner]} inspections and tool tests running, the most one user may have "
                f"at once (EVALHUB_BACKGROUND_SLOTS_PER_USER = {share}) so that others get their turn. Wait for one "
                "to end (at most its server's connect timeout) and try again."
            )
        if _accepted >= THREADS + QUEUED:
            raise Busy(f"EvalHub is already running {_accepted} inspections and tests; try again in a moment.")
        if stdio and _stdio >= settings.EVALHUB_WEB_STDIO_PROCESSES:
            raise _stdio_busy(_stdio)
        _accepted += 1
        _owners[owner] += 1
        _stdio += stdio
        if _executor is None:
            _executor = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="evalhub-background")
        executor = _executor
    handoff: _Handoff[T] = _Handoff()
    executor.submit(_work, call, handoff, late, owner, stdio)
    return handoff.collect(wait)


def _work(
    call: Callable[[], T], handoff: _Handoff[T], late: Callable[[Outcome[T]], None], owner: Hashable, stdio: bool
) -> None:
    global _accepted, _stdio
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
            _owners[owner] -= 1
            if not _owners[owner]:
                del _owners[owner]
            _stdio -= stdio
