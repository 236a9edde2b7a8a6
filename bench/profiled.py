"""Run a Python program with cProfile on every thread, writing the merged profile when it exits.

    .venv/bin/python bench/profiled.py OUT.pstats -m celery -A evalhub worker ...

cProfile alone profiles one thread; a worker's CPU is spent on dozens (runs, database writers, the consumer), so
each thread gets a profiler of its own as it starts, timed by the thread's own CPU clock (not the wall clock,
which would count every wait), and they are merged at exit (SIGTERM included).
worker_concurrency.py --profile uses it; the profiler roughly doubles the CPU it measures, so read the shares.
"""

from __future__ import annotations

import atexit
import contextlib
import cProfile
import pstats
import runpy
import signal
import sys
import threading
import time
from types import FrameType
from typing import Any

_profiles: list[cProfile.Profile] = []
_lock = threading.Lock()


def _start(frame: FrameType, event: str, arg: Any) -> None:
    """threading.setprofile's hook: called once in each new thread, it hands the thread to a profiler of its own."""
    profile = cProfile.Profile(time.thread_time)
    with _lock:
        _profiles.append(profile)
    profile.enable()


def _dump(path: str) -> None:
    with _lock:
        profiles = list(_profiles)
    for profile in profiles:
        profile.disable()  # only stops the calling thread's; the others' tables are read as they are
    stats = pstats.Stats(profiles[0])
    for profile in profiles[1:]:
        with contextlib.suppress(TypeError):  # a thread that never ran a call
            stats.add(profile)
    stats.dump_stats(path)


def main() -> None:
    out, *argv = sys.argv[1:]
    threading.setprofile(_start)
    main_profile = cProfile.Profile(time.thread_time)
    _profiles.append(main_profile)
    atexit.register(_dump, out)
    # Celery's warm shutdown exits through sys.exit, which runs atexit; a plain SIGTERM would not.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    main_profile.enable()
    if argv[0] == "-m":
        sys.argv = [argv[1], *argv[2:]]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv
        runpy.run_path(argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
