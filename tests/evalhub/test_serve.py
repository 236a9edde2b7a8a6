from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import urllib.request
from pathlib import Path

import pytest

from tests.base import PROJECT_DIR, PYTHON, child_env, free_port, wait_until


def health(port: int) -> dict[str, object] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as response:
            return json.load(response)  # type: ignore[no-any-return]
    except OSError:
        return None


def start_serve(port: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [PYTHON, "manage.py", "serve", "--addr", f"127.0.0.1:{port}", "--concurrency", "1"],
        cwd=PROJECT_DIR,
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


@pytest.mark.worker
class ServeTests:
    def test_it_starts_both_says_where_last_once_they_are_up_and_ctrl_c_stops_both(
        self, transactional_db: None
    ) -> None:
        port = free_port()
        process = start_serve(port)
        try:
            output = ""
            assert process.stdout is not None
            for line in process.stdout:  # read as it is written, until the launcher says it is ready
                output += line
                if "press Ctrl-C to stop" in line:
                    break
            report = health(port)  # it was answering when that was said
            assert report is not None and report["status"] == "ok"
            children = subprocess.run(
                ["pgrep", "-g", str(process.pid), "-f", "runserver|celery"], capture_output=True, text=True
            ).stdout.split()
            assert len(children) >= 2

            # Ctrl-C in a terminal reaches the whole foreground process group.
            os.killpg(process.pid, signal.SIGINT)
            rest, _ = process.communicate(timeout=30)
            output += rest
        finally:
            if process.poll() is None:
                process.kill()

        # The address is the last thing said at start-up, after the worker's own banner.
        assert " ready." in output and output.rindex("EvalHub is running at") > output.index(" ready.")
        assert "Stopping the web app and the worker" in output
        # A worker process that outlived the grace period is killed (SIGKILL, through its parent's death signal),
        # which the kernel completes a moment after the launcher has exited.
        wait_until(lambda: not group_members(process.pid), timeout=15, what="every process of the group to exit")
        assert process.returncode in (0, -signal.SIGINT)

    def test_terminating_the_launcher_alone_stops_both(self, transactional_db: None) -> None:
        port = free_port()
        process = start_serve(port)
        try:
            wait_until(lambda: health(port), timeout=60, what="the web app to answer /health")

            process.terminate()  # SIGTERM to the launcher only, as `kill <pid>` would
            output, _ = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)

        assert "Stopping the web app and the worker" in output
        wait_until(lambda: not group_members(process.pid), timeout=15, what="every process of the group to exit")

    def test_a_taken_port_is_said_plainly_and_nothing_is_started(self, transactional_db: None) -> None:
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]

            result = subprocess.run(
                [PYTHON, "manage.py", "serve", "--addr", f"127.0.0.1:{port}"],
                cwd=PROJECT_DIR,
                env=child_env(),
                capture_output=True,
                text=True,
                timeout=60,
            )

        assert result.returncode == 1
        assert f"Port {port} on 127.0.0.1 is already in use" in result.stderr
        assert f"make run ADDR=127.0.0.1:{port + 1}" in result.stderr
        assert "EvalHub is running" not in result.stdout and "celery" not in result.stdout + result.stderr

    def test_make_run_on_a_taken_port_says_so_before_migrating_anything(self, tmp_path: Path) -> None:
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]

            result = subprocess.run(
                # -o: never reinstall the environment from here, whatever the stamps' dates.
                ["make", "-o", ".venv/.runtime-installed", "run", f"ADDR=127.0.0.1:{port}"],
                cwd=PROJECT_DIR,
                env={"PATH": os.environ["PATH"], "EVALHUB_VAR_DIR": str(tmp_path)},
                capture_output=True,
                text=True,
                timeout=60,
            )

        assert result.returncode != 0
        assert f"Port {port} on 127.0.0.1 is already in use" in result.stderr
        assert not (tmp_path / "evalhub.sqlite3").exists()  # no migration, no demo seeded first


def group_members(group: int) -> list[str]:
    return subprocess.run(["pgrep", "-g", str(group)], capture_output=True, text=True).stdout.split()
