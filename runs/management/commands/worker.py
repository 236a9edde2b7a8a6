"""Start the worker: one Celery worker process per core, each carrying runs on threads (runs/worker_processes.py).

`make run` (through `serve`) and the README's production command start this. The processes live and die
together: Ctrl-C or SIGTERM stops them all with Celery's warm shutdown (each finishes its runs in flight, as one
`celery worker` did; a second Ctrl-C or SIGTERM kills them), a process whose parent was killed is killed too (on
Linux), and when one exits on its own the others are stopped and the command exits with its code, so a
supervisor (systemd, a container) restarts the whole worker and each process reaps what its dead predecessor of
the same name left.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import subprocess
import sys
import time
from types import FrameType
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from runs.worker_processes import process_count, worker_commands

PR_SET_PDEATHSIG = 1


class Command(BaseCommand):
    help = "Run the Celery worker: one process per core (EVALHUB_WORKER_PROCESSES), each carrying runs on threads."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--processes", type=int, help="worker processes (default: EVALHUB_WORKER_PROCESSES; 0 = one per core)"
        )
        parser.add_argument(
            "--concurrency", type=int, help="runs each process carries at once (default: EVALHUB_WORKER_CONCURRENCY)"
        )
        parser.add_argument(
            "--name", default="evalhub", help="process i is named NAME-i@host; give each machine's worker its own"
        )
        parser.add_argument(
            "celery_args", nargs="*", help="more `celery worker` options for every process, after `--` (-Q queue)"
        )

    def handle(
        self,
        *args: Any,
        processes: int | None,
        concurrency: int | None,
        name: str,
        celery_args: list[str],
        **options: Any,
    ) -> None:
        configured = settings.EVALHUB_WORKER_PROCESSES if processes is None else processes
        if configured < 0:
            raise CommandError(f"--processes must be 0 (one per core) or more, not {configured}.")
        if concurrency is not None and concurrency < 1:
            raise CommandError(f"--concurrency must be at least 1, not {concurrency}.")
        commands = worker_commands(
            processes=process_count(configured), name=name, concurrency=concurrency, extra=celery_args
        )
        signal.signal(signal.SIGTERM, _interrupt)
        signal.signal(signal.SIGINT, _interrupt)
        self.stdout.write(
            f"Starting {len(commands)} worker process(es): {', '.join(c[c.index('-n') + 1] for c in commands)}"
        )
        children = [subprocess.Popen(command, preexec_fn=_die_with_parent) for command in commands]
        exit_code = 0
        try:
            while all(child.poll() is None for child in children):
                time.sleep(0.5)
            exited = next(child for child in children if child.poll() is not None)
            exit_code = exited.returncode or 1
            self.stderr.write(f"Worker process {exited.pid} exited with code {exited.returncode}; stopping the others.")
        except KeyboardInterrupt:
            pass
        finally:
            _stop(children)
        if exit_code:
            sys.exit(exit_code)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _die_with_parent() -> None:
    """In each child before it runs Celery: SIGKILL when this command dies, even by SIGKILL (`serve` kills it
    after its grace period), so no worker process is left running runs nobody stops. Its runs are then reaped
    as lost, as those of a killed `celery worker` are."""
    # Not Linux: the children outlive a killed parent, as a lone `celery worker` would.
    with contextlib.suppress(AttributeError, OSError):
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _stop(children: list[subprocess.Popen[bytes]]) -> None:
    # Ctrl-C reached them already when they share the terminal's process group; SIGTERM covers every other case
    # (a warm shutdown either way: each finishes its runs in flight, however long that takes).
    for child in children:
        if child.poll() is None:
            child.terminate()
    try:
        for child in children:
            child.wait()
    except KeyboardInterrupt:
        for child in children:
            child.kill()
            child.wait()
