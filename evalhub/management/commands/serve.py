"""Start the web app and a Celery worker together; Ctrl-C stops both.

This is what `make run` uses. Production runs them as separate processes (see README).
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from datetime import datetime
from types import FrameType
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from evalhub.demo import demo_login_lines
from evalhub.models import WorkerHeartbeat

STOP_GRACE_SECONDS = 10
# How long the banner waits for the web app to answer and the worker to report before it is printed anyway.
READY_SECONDS = 60


class Command(BaseCommand):
    help = "Run the web app and a Celery worker in one terminal (development)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--addr", default="127.0.0.1:8000", help="host:port for the web app")
        parser.add_argument(
            "--concurrency",
            type=int,
            help="runs each worker process carries at once (default: EVALHUB_WORKER_CONCURRENCY)",
        )
        parser.add_argument(
            "--prepare", action="store_true", help="first migrate, create the cache table and seed the demo (make run)"
        )

    def handle(self, *args: Any, addr: str, concurrency: int | None, prepare: bool, **options: Any) -> None:
        # `kill` (SIGTERM) must stop both children too, exactly like Ctrl-C, or they outlive the launcher; and
        # Ctrl-C must work even when started from a shell that made background jobs ignore SIGINT.
        signal.signal(signal.SIGTERM, _interrupt)
        signal.signal(signal.SIGINT, _interrupt)
        host, port = _host_port(addr)
        _require_free(host, port)
        if prepare:
            # In this process rather than three more `manage.py` runs: each would start Django again, and a
            # second `make run` is then mostly start-up time.
            call_command("migrate", interactive=False, verbosity=0)
            call_command("createcachetable")
            call_command("seed_demo")
        launched = timezone.now()
        python = sys.executable
        children = {
            "web": subprocess.Popen([python, "manage.py", "runserver", addr, "--noreload"]),
            # The worker as the README starts it: one process per core, each carrying many runs on threads
            # (runs/management/commands/worker.py).
            "worker": subprocess.Popen(
                [python, "manage.py", "worker", *([f"--concurrency={concurrency}"] if concurrency else [])]
            ),
        }
        exit_code = 0
        try:
            # Said last, below the web app's and the worker's start-up banners, so the address and the login are
            # what the terminal shows.
            ready = self._wait_until_ready(children, host, port, launched)
            if ready:
                self.stdout.write("")
                self.stdout.write(self.style.SUCCESS(f"EvalHub is running at http://{addr}/ — press Ctrl-C to stop."))
                if ready == "no worker":
                    self.stdout.write(f"The worker has not reported within {READY_SECONDS} s: runs wait until it does.")
                for line in demo_login_lines():
                    self.stdout.write(line)
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

    def _wait_until_ready(
        self, children: dict[str, subprocess.Popen[bytes]], host: str, port: int, launched: datetime
    ) -> str:
        """ "ready" once the web app accepts connections and the worker has reported since launch; "no worker" if
        the worker is still silent after READY_SECONDS; "" if a child exited meanwhile (the caller reports it)."""
        deadline = time.monotonic() + READY_SECONDS
        web_up = False
        while all(child.poll() is None for child in children.values()):
            web_up = web_up or _accepts(host, port)
            if web_up and WorkerHeartbeat.objects.filter(last_seen__gte=launched).exists():
                return "ready"
            if time.monotonic() > deadline:
                return "no worker" if web_up else ""
            time.sleep(0.2)
        return ""

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


def _host_port(addr: str) -> tuple[str, int]:
    host, _, port = addr.rpartition(":")
    if not port.isdigit():
        raise CommandError(f"--addr must be host:port (like 127.0.0.1:8000), not {addr!r}.")
    return host.strip("[]") or "127.0.0.1", int(port)


def _require_free(host: str, port: int) -> None:
    """Refuse at once, in one sentence, rather than start a worker beside a web app that cannot listen."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        # As the web server binds: a port held only by connections closing down (TIME_WAIT) is free.
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            raise CommandError(
                f"Port {port} on {host} is already in use (another EvalHub, or another program). Stop it, or start "
                f"on another port: make run ADDR={host}:{port + 1}"
            ) from None


def _accepts(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=0.5):
            return True
    except OSError:
        return False
