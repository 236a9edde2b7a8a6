"""How many worker processes `manage.py worker` starts, and the command line of each (pure: no Django, no I/O).

A run's own CPU work (the harness, not its waiting) runs under one process's GIL, so one worker process uses
one core however many threads carry its runs. One process per core, each carrying EVALHUB_WORKER_CONCURRENCY
runs on threads, uses every core. Each process is an ordinary `celery -A evalhub worker` with a name of its
own: claiming (a conditional UPDATE), reaping (by heartbeat, and at start by the process's own name), cancelling
(a flag the run reads) and the quota (spent when a run is queued) are the same as with one.
"""

from __future__ import annotations

import os
import sys


def process_count(configured: int) -> int:
    """`configured` (EVALHUB_WORKER_PROCESSES or --processes), or with 0 the cores this process may run on."""
    if configured > 0:
        return configured
    try:
        return len(os.sched_getaffinity(0))  # a container's or taskset's share, not the machine's
    except AttributeError:  # macOS has no affinity
        return os.cpu_count() or 1


def worker_commands(
    *, processes: int, name: str, concurrency: int | None, extra: list[str], python: str = sys.executable
) -> list[list[str]]:
    """One `celery worker` command line per process, named `<name>-<i>@%h`: the name is what a restarted process
    reaps its dead predecessor's runs by (runs/heartbeat.py), so process i keeps the same name across restarts."""
    return [
        [
            python,
            *("-m", "celery", "-A", "evalhub", "worker", "--loglevel=INFO"),
            *("-n", f"{name}-{index}@%h"),
            *([f"--concurrency={concurrency}"] if concurrency else []),
            *extra,
        ]
        for index in range(1, processes + 1)
    ]
