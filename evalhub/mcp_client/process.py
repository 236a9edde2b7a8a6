"""Bookkeeping for a stdio server process: its stderr tail, stray stdout lines, and killing its process group."""

from __future__ import annotations

import os
import signal
from contextlib import suppress

import anyio
from anyio.abc import Process

from evalhub.mcp_client.redact import Redactor

STDERR_TAIL_LINES = 40
STDERR_TAIL_BYTES = 4096
NOISE_LINES_KEPT = 3
NOISE_LINE_CHARS = 200
_POLL_INTERVAL = 0.02


class StderrTail:
    """The last STDERR_TAIL_LINES lines / STDERR_TAIL_BYTES bytes a process wrote, whatever it wrote before."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, chunk: bytes) -> None:
        self._buffer += chunk
        # Trim in batches: a chatty server must not cost a copy per chunk.
        if len(self._buffer) > 2 * STDERR_TAIL_BYTES:
            del self._buffer[: len(self._buffer) - STDERR_TAIL_BYTES]

    def text(self) -> str:
        data = bytes(self._buffer[-STDERR_TAIL_BYTES:])
        lines = data.decode("utf-8", errors="replace").splitlines()
        return "\n".join(lines[-STDERR_TAIL_LINES:])


class StdioState:
    """What the transport learned about the process, read later to explain a failure."""

    def __init__(self, redact: Redactor) -> None:
        self.redact = redact
        self.process: Process | None = None
        self.stderr = StderrTail()
        self.noise: list[str] = []
        self.noise_count = 0
        # EvalHub stopped reading because one message grew past stdio.MAX_LINE_BYTES without its line end.
        self.oversized = False

    @property
    def returncode(self) -> int | None:
        return None if self.process is None else self.process.returncode

    def stderr_tail(self) -> str:
        return self.redact(self.stderr.text())

    def forget_output(self) -> None:
        """Start the stderr tail and the stray-stdout count afresh (a warm server lent to its next run)."""
        self.stderr = StderrTail()
        self.noise, self.noise_count = [], 0

    def note_noise(self, line: bytes) -> None:
        """Remember a stdout line that is not a JSON-RPC message (a banner, a print(), a stack trace)."""
        self.noise_count += 1
        if len(self.noise) < NOISE_LINES_KEPT:
            text = line.decode("utf-8", errors="replace").strip()
            if len(text) > NOISE_LINE_CHARS:
                text = text[:NOISE_LINE_CHARS] + "..."
            self.noise.append(self.redact(text))

    async def wait_exit(self, timeout: float) -> int | None:
        """The exit code once the process has exited, or None if it is still running after `timeout`."""
        with anyio.move_on_after(timeout):
            while self.returncode is None:
                await anyio.sleep(_POLL_INTERVAL)
        return self.returncode


def describe_exit(returncode: int) -> str:
    """'exited with code 3' or 'was killed by SIGKILL'."""
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"was killed by {name}"
    return f"exited with code {returncode}"


def _signal_group(pgid: int, signum: int) -> bool:
    """Send `signum` to the whole group; False once the group no longer exists."""
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        return False
    except PermissionError:
        # EPERM does not prove the group is gone (zombies, setuid members); keep escalating.
        return True
    return True


def _group_alive(pgid: int) -> bool:
    """Whether any member of the group is still running.

    killpg(pgid, 0) also succeeds while only zombies are left, and an orphaned grandchild stays a zombie until
    init gets round to reaping it, so on Linux we look for a live member in /proc instead.
    """
    if not _signal_group(pgid, 0):
        return False
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except OSError:
            continue
        # After the command name: state, ppid, pgrp.
        if len(fields) > 2 and int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


async def terminate_group(process: Process, *, grace: float, term_wait: float = 1.0) -> None:
    """Stop the server and everything it spawned: wait `grace` s, SIGTERM the group, SIGKILL after `term_wait` s.

    The server was started with start_new_session=True, so its pid is the id of a process group that all its
    descendants share unless they deliberately leave it (setsid daemons escape by design). The group is
    signalled even when the leader already exited, because grandchildren can outlive it.
    """
    pgid = process.pid
    if grace > 0:
        with anyio.move_on_after(grace):
            while process.returncode is None:
                await anyio.sleep(_POLL_INTERVAL)
    if _signal_group(pgid, signal.SIGTERM) and not await _group_gone(pgid, term_wait):
        _signal_group(pgid, signal.SIGKILL)
        # SIGKILL is delivered asynchronously; wait (bounded) until the kernel has actually removed the group.
        await _group_gone(pgid, 1.0)
    # The leader may be a zombie that asyncio's child watcher has not reaped yet. Wait for it (bounded): closing
    # the transport polls the process, which would reap it first and leave the watcher reporting exit code 255.
    with anyio.move_on_after(1.0):
        while process.returncode is None:
            await anyio.sleep(_POLL_INTERVAL)


async def _group_gone(pgid: int, timeout: float) -> bool:
    """Whether every member of the group has exited within `timeout` s."""
    with anyio.move_on_after(timeout):
        while _group_alive(pgid):
            await anyio.sleep(_POLL_INTERVAL)
        return True
    return False


def close_transport(process: Process) -> None:
    """Close asyncio's subprocess transport now.

    Otherwise it stays open while anything still holds a pipe end and complains ("Event loop is closed") when
    garbage-collected after the loop is gone. anyio does not expose it, hence the duck-typed attribute walk
    (the SDK's stdio client does the same).
    """
    transport = getattr(getattr(process, "_process", None), "_transport", None)
    close = getattr(transport, "close", None)
    if callable(close):
        with suppress(Exception):
            close()
