"""Warm reuse of stdio servers: a small pool of already-initialised server processes, lent to runs one at a time.

Django-free, like the rest of the MCP layer. A fresh process per run is the default (every run starts from a clean
server); a server its owner marks stateless may instead be served from this pool:

    async with WARM_POOL.lease(config, key="server-7", recycle_after=20) as lease:
        tools = await lease.conn.list_tools()
        ...
        if the_run_was_cancelled:
            lease.discard()

The rules, each enforced here:
- A process is lent to one run at a time: a lease takes it out of the idle list, and only the end of the lease
  puts it back.
- It is closed instead of put back after `recycle_after` runs, or when anything went wrong on it: an exception left
  the lease (a failed handshake, a protocol error, a time limit, a cancelled task), a request on it failed or a
  tool answered an error (`Connection.had_error`), the process exited, or the caller discarded the lease (a
  cancelled run).
- The pool keeps at most `max_idle` idle processes per key and closes those idle for `idle_seconds`.
- `close()` (the worker's shutdown) closes every idle process and those still lent once their runs end.

The processes and their MCP sessions live on one event loop of the pool's own, in a daemon thread: a run's event
loop is gone when the run ends, the process must outlive it. A run's requests hop to that loop (see
`Connection._request`), so each run keeps its own loop and the pool needs no lock around the sessions.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Coroutine
from concurrent.futures import Future
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any, TypeVar

from evalhub.mcp_client.config import ServerConfig
from evalhub.mcp_client.connection import Connection, connect

logger = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_RECYCLE_AFTER = 20
MAX_RECYCLE_AFTER = 1000
MAX_IDLE_PER_KEY = 4
IDLE_SECONDS = 300.0
# How long `close()` waits for the idle processes to stop (each stop is itself bounded, see process.py).
CLOSE_WAIT_SECONDS = 10.0


@dataclass
class _Process:
    """One warm server: its open session and the task on the pool's loop that holds it open."""

    key: str
    conn: Connection
    stop: asyncio.Event
    holder: asyncio.Task[None]
    uses: int = 0
    idle_since: float = field(default_factory=time.monotonic)

    @property
    def pid(self) -> int | None:
        return self.conn.pid


@dataclass
class _Start:
    """A process being started for a run, and whether that run gave up waiting for it."""

    process: _Process | None = None
    abandoned: bool = False


@dataclass
class Lease:
    """What a run got: the connection, and how it started (for the run's time split)."""

    conn: Connection
    warm: bool  # an idle process was reused (no start, no handshake)
    use: int  # this run is the process's use-th
    recycle_after: int
    start_ms: int  # how long the run waited for its server: starting one, or 0 for a warm one
    pid: int | None
    _discarded: bool = False

    def discard(self) -> None:
        """Close the process at the end of the lease instead of lending it again (e.g. the run was cancelled)."""
        self._discarded = True

    def describe(self) -> dict[str, Any]:
        return {"ms": self.start_ms, "warm": self.warm, "use": self.use, "recycleAfter": self.recycle_after}


class WarmPool:
    def __init__(self, *, max_idle: int = MAX_IDLE_PER_KEY, idle_seconds: float = IDLE_SECONDS) -> None:
        self.max_idle = max_idle
        self.idle_seconds = idle_seconds
        self._lock = threading.Lock()
        self._idle: dict[str, list[_Process]] = {}
        self._closing = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._owner_pid = 0
        self.started = 0  # processes started since the pool was created (for tests and benches)

    # Lending ------------------------------------------------------------------------------------------------

    @asynccontextmanager
    async def lease(self, config: ServerConfig, *, key: str, recycle_after: int) -> AsyncIterator[Lease]:
        """Lend an idle process of `key` (the same server with the same settings), or start one for this run.

        Raises McpConnectionError as `connect` does when a process has to be started and cannot be.
        """
        started = time.perf_counter()
        process = self._take(key)
        warm = process is not None
        if process is None:
            process = await self._start(config, key)
        else:
            # What the last run's server said (stderr, notifications) is not this run's to report.
            await self._on_home(_forget_history(process.conn))
        process.uses += 1
        lease = Lease(
            conn=process.conn,
            warm=warm,
            use=process.uses,
            recycle_after=recycle_after,
            start_ms=0 if warm else round((time.perf_counter() - started) * 1000),
            pid=process.pid,
        )
        clean = False
        try:
            yield lease
            clean = True
        finally:
            reusable = clean and not lease._discarded and process.uses < max(recycle_after, 1)
            self._give_back(process, reusable=reusable)

    def idle(self, key: str | None = None) -> list[int | None]:
        """The pids of the idle processes (of `key`, or all): what a test or a status page may look at."""
        with self._lock:
            groups = [self._idle.get(key, [])] if key is not None else list(self._idle.values())
            return [process.pid for group in groups for process in group]

    def _take(self, key: str) -> _Process | None:
        with self._lock:
            self._forget_after_fork()
            group = self._idle.get(key, [])
            while group:
                process = group.pop()
                # A server that died while idle is not lent: the run would fail for nothing it did.
                if process.conn.exited:
                    self._close_later(process)
                    continue
                return process
        return None

    def _give_back(self, process: _Process, *, reusable: bool) -> None:
        with self._lock:
            group = self._idle.setdefault(process.key, [])
            keep = (
                reusable
                and not self._closing
                and not process.conn.had_error
                and not process.conn.exited
                and len(group) < self.max_idle
            )
            if keep:
                process.idle_since = time.monotonic()
                group.append(process)
                return
        self._close_later(process)

    # The pool's own event loop -------------------------------------------------------------------------------

    def _home(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            self._forget_after_fork()
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=self._serve, args=(loop,), name="evalhub-warm-pool", daemon=True).start()
                self._loop, self._owner_pid = loop, os.getpid()
                atexit.register(self.close)
            return self._loop

    def _forget_after_fork(self) -> None:
        """In a forked child (a prefork worker) the parent's loop thread and processes are not ours: start over."""
        if self._loop is not None and self._owner_pid != os.getpid():
            self._loop, self._idle = None, {}

    def _serve(self, loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        loop.create_task(self._sweep())
        loop.run_forever()

    async def _on_home(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await `coro` on the pool's loop from any other loop; cancelling the caller cancels it there."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._home()))

    async def _start(self, config: ServerConfig, key: str) -> _Process:
        """A new process for the calling run. Should the run give up (a time limit, a cancel) just as the process
        became ready, the process is closed, not left running where no run can see it."""
        start = _Start()
        try:
            return await self._on_home(self._open(config, key, start))
        except BaseException:
            with self._lock:
                start.abandoned = True
                ready = start.process
            if ready is not None:
                self._close_later(ready)
            raise

    async def _open(self, config: ServerConfig, key: str, start: _Start) -> _Process:
        """Start the server and finish its handshake, on the pool's loop; the session stays open in a holder task."""
        ready: asyncio.Future[Connection] = asyncio.get_running_loop().create_future()
        stop = asyncio.Event()

        async def hold() -> None:
            try:
                async with connect(config) as conn:
                    ready.set_result(conn)
                    await stop.wait()
            except BaseException as exc:
                if not ready.done():
                    if isinstance(exc, asyncio.CancelledError):
                        ready.cancel()
                    else:
                        ready.set_exception(exc)
                elif not isinstance(exc, asyncio.CancelledError):
                    logger.warning("A warm stdio server did not close cleanly: %s", exc)
                if isinstance(exc, asyncio.CancelledError):
                    raise

        holder = asyncio.create_task(hold())
        try:
            conn = await ready
        except BaseException:
            # The run gave up (its time limit, a cancel) or the start failed: nothing is left running either way.
            holder.cancel()
            with suppress(BaseException):
                await holder
            raise
        self.started += 1
        process = _Process(key=key, conn=conn, stop=stop, holder=holder)
        with self._lock:
            start.process = process
            abandoned = start.abandoned
        if abandoned:
            stop.set()
        return process

    def _close_later(self, process: _Process) -> None:
        """Stop the process in the background (stdin closed, then the group signalled; see stdio.py)."""
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with suppress(RuntimeError):  # the loop stopped at interpreter exit
                loop.call_soon_threadsafe(process.stop.set)

    async def _sweep(self) -> None:
        """Close processes idle for longer than `idle_seconds`: a pool left alone gives its memory back."""
        while True:
            await asyncio.sleep(min(self.idle_seconds, 30.0))
            cutoff = time.monotonic() - self.idle_seconds
            with self._lock:
                expired = [p for group in self._idle.values() for p in group if p.idle_since < cutoff]
                for group in self._idle.values():
                    group[:] = [p for p in group if p.idle_since >= cutoff]
            for process in expired:
                process.stop.set()

    # Shutting down -----------------------------------------------------------------------------------------

    def close(self) -> None:
        """Close every idle process now and every lent one when its run ends; wait (bounded) for the idle ones."""
        with self._lock:
            self._closing = True
            self._forget_after_fork()
            loop = self._loop
            idle = [process for group in self._idle.values() for process in group]
            self._idle = {}
        if loop is None or loop.is_closed() or not idle:
            return

        async def stop_all() -> None:
            for process in idle:
                process.stop.set()
            await asyncio.wait([process.holder for process in idle], timeout=CLOSE_WAIT_SECONDS)

        future: Future[None] = asyncio.run_coroutine_threadsafe(stop_all(), loop)
        with suppress(Exception):
            future.result(timeout=CLOSE_WAIT_SECONDS + 1)

    def reopen(self) -> None:
        """Lend again after `close()` (tests close the pool between cases)."""
        with self._lock:
            self._closing = False


async def _forget_history(conn: Connection) -> None:
    conn.forget_history()


# One pool per worker process: runs on its threads share it.
WARM_POOL = WarmPool()
