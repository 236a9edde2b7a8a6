"""Stdio servers whose owner died, and how the next sweep kills them.

A stdio server runs in its own process group, and closing a connection kills that group (process.py). But a
process killed with SIGKILL runs no cleanup: a server that ignores stdin EOF and SIGTERM then lives on. So each
spawned group is recorded in a small file naming it and its owner (the process that spawned it), and
`kill_leftovers` — the worker calls it when it starts and on its housekeeping schedule — kills every recorded
group whose owner is gone.

Processes are identified by pid *and* start time (from /proc), so a recycled pid is never mistaken for the
process that was recorded. Records of another machine or boot are never acted on. Linux only: elsewhere nothing
is recorded and nothing is swept.
"""

from __future__ import annotations

import json
import os
import signal
import socket
from contextlib import suppress
from dataclasses import asdict, dataclass
from pathlib import Path

_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")
# Where records go; None until a process configures it (Django's app start-up does, for web and worker alike).
_directory: Path | None = None


def track_in(directory: Path | None) -> None:
    """Record every stdio server this process spawns from now on under `directory` (None stops recording)."""
    global _directory
    _directory = directory if directory is not None and _BOOT_ID.exists() else None
    if _directory is not None:
        _directory.mkdir(parents=True, exist_ok=True)


@dataclass(frozen=True)
class Record:
    pgid: int
    leader_started: int
    owner_pid: int
    owner_started: int
    host: str
    boot_id: str
    command: str


def _started(pid: int) -> int | None:
    """The process's start time in clock ticks since boot, or None when no such process is running."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
    except OSError:
        return None
    # After the command name: state is fields[0], starttime is the 22nd field of the line, fields[19] here.
    if fields[0] in (b"Z", b"X"):
        return None
    return int(fields[19])


def _boot_id() -> str:
    return _BOOT_ID.read_text().strip()


def remember(pgid: int, command: str) -> None:
    """Record the group of a server just spawned (its leader's pid is the group id) as this process's."""
    if _directory is None:
        return
    leader_started, owner_started = _started(pgid), _started(os.getpid())
    if leader_started is None or owner_started is None:
        return  # the server already exited; nothing to clean up later
    record = Record(
        pgid, leader_started, os.getpid(), owner_started, socket.gethostname(), _boot_id(), os.path.basename(command)
    )
    path = _directory / f"{pgid}.json"
    path.with_suffix(".tmp").write_text(json.dumps(asdict(record)))
    # Renamed into place, so a sweep never reads half a record.
    path.with_suffix(".tmp").replace(path)


def forget(pgid: int) -> None:
    """The group was stopped by its owner: no record needed any more."""
    if _directory is not None:
        with suppress(FileNotFoundError):
            (_directory / f"{pgid}.json").unlink()


def kill_leftovers() -> list[Record]:
    """SIGKILL every recorded group whose owner is no longer running; returns the groups killed."""
    if _directory is None:
        return []
    killed: list[Record] = []
    host, boot_id = socket.gethostname(), _boot_id()
    for path in _directory.glob("*.json"):
        try:
            record = Record(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            path.unlink(missing_ok=True)  # unreadable: nothing can be done with it
            continue
        if record.host != host:
            continue  # a shared directory: that machine's own sweep handles it
        if record.boot_id == boot_id:
            if _started(record.owner_pid) == record.owner_started:
                continue  # its owner is alive and will stop it
            leader = _started(record.pgid)
            # A live leader with another start time is a new process that reuses the pid, which the kernel only
            # allows once the old group is gone. Otherwise the group id still names the recorded group, even when
            # its leader exited and only its children remain.
            if leader is None or leader == record.leader_started:
                with suppress(ProcessLookupError, PermissionError):
                    # SIGKILL at once: the owner is gone, and a member still running ignored stdin EOF already.
                    os.killpg(record.pgid, signal.SIGKILL)
                    killed.append(record)
        path.unlink(missing_ok=True)
    return killed
