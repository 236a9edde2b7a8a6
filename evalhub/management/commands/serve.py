"""Start the web app and a Celery worker together; Ctrl-C stops both.

This is what `make run` uses. Production runs them as separate processes (see README).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from types import FrameType
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

STOP_GRACE_SECONDS = 10


class Command(BaseCommand):
    help = "Run the web app and a Celery worker in one terminal (development)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--addr", default="127.0.0.1:8000", help="host:port for the web app")
        parser.add_argument(
            "--concurrency", type=int, help="runs the worker carries at once (default: EVALHUB_WORKER_CONCURRENCY)"
        )

    def handle(self, *args: Any, addr: str, concurrency: int | None, **options: Any) -> None:
        # `kill` (SIGTERM) must stop both children too, exactly like Ctrl-C, or they outlive the launcher; and
        # Ctrl-C must work even when started from a shell that made background jobs ignore SIGINT.
        signal.signal(signal.SIGTERM, _interrupt)
        signal.signal(signal.SIGINT, _interrupt)
        python = sys.executable
        children = {
            "web": subprocess.Popen([python, "manage.py", "runserver", addr, "--noreload"]),
            # The worker as the README starts it: one process carrying many runs on threads (settings.py).
            "worker": subprocess.Popen(
                [
                    python,
                    *("-m", "celery", "-A", "evalhub", "worker", "--loglevel=INFO"),
                    *([f"--concurrency={concurrency}"] if concurrency else []),
                ]
            ),
        }
        self.stdout.write(self.style.SUCCESS(f"EvalHub is running at http://{addr}/ — press Ctrl-C to stop."))
        exit_code = 0
        try:
            while all(child.poll() is None for child in children.values()):
                time.sleep(0.5)
            # One of them died on its own: say which, and stop the other rather than run half a product.
            for name, child in children.items():
                if child.poll() is not None:
                    self.stderr.write(f"The {name} process exited with code {child.returncode}; stopping.")
                    exit_code = child.returncode or 1
        except KeyboardInterrupt:
            self.stdout.write("Stopping the web app and the worker…")
        finally:
            self._stop(children)
        if exit_code:
            sys.exit(exit_code)

    def _stop(self, children: dict[str, subprocess.Popen[bytes]]) -> None:
        # Ctrl-C already reached both (same process group); terminate covers the case where only one died.
        for child in children.values():
            if child.poll() is None:
                child.terminate()
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for child in children.values():
            try:
                child.wait(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt
