"""`manage.py worker` (what `make run` and the README start): one Celery worker process per core, each named
apart, all stopped together; and the plan it follows (runs/worker_processes.py)."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from evalhub.models import WorkerHeartbeat
from runs.worker_processes import process_count, worker_commands
from tests.base import PROJECT_DIR, PYTHON, child_env, wait_until
from tests.conftest import TEST_QUEUE


def children_of(pid: int) -> list[int]:
    result = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(child) for child in result.stdout.split()]


def start(log_path: Path, *flags: str, **env: str) -> subprocess.Popen[bytes]:
    with log_path.open("wb") as log:
        return subprocess.Popen(
            [PYTHON, "manage.py", "worker", "--name", TEST_QUEUE, *flags, "--", "-Q", TEST_QUEUE],
            cwd=PROJECT_DIR,
            env=child_env(EVALHUB_CELERY_QUEUE=TEST_QUEUE, **env),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def reported() -> set[str]:
    """The names of the worker processes that have said they are alive (each does as it starts)."""
    return {name.split("@")[0] for name in WorkerHeartbeat.objects.values_list("hostname", flat=True)}


class PlanTests:
    def test_zero_means_one_process_per_core_this_process_may_use(self) -> None:
        assert process_count(0) == len(os.sched_getaffinity(0))
        assert process_count(3) == 3

    def test_each_process_gets_a_name_of_its_own_and_the_same_options(self) -> None:
        commands = worker_commands(processes=3, name="evalhub", concurrency=8, extra=["-Q", "runs"], python="py")

        assert [command[command.index("-n") + 1] for command in commands] == [
            "evalhub-1@%h",
            "evalhub-2@%h",
            "evalhub-3@%h",
        ]
        assert all(command[:5] == ["py", "-m", "celery", "-A", "evalhub"] for command in commands)
        assert all(command[-3:] == ["--concurrency=8", "-Q", "runs"] for command in commands)


@pytest.mark.worker
class WorkerCommandTests:
    def test_it_starts_the_processes_asked_for_each_a_celery_worker_that_reports(
        self, transactional_db: None, tmp_path: Path
    ) -> None:
        process = start(tmp_path / "worker.log", "--processes", "3")
        try:
            names = {f"{TEST_QUEUE}-{index}" for index in (1, 2, 3)}
            wait_until(lambda: reported() == names, timeout=90, what="three worker processes to report")
            assert len(children_of(process.pid)) == 3
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=60)

    def test_by_default_it_starts_one_process_per_core_and_sigterm_stops_them_all(
        self, transactional_db: None, tmp_path: Path
    ) -> None:
        cores = len(os.sched_getaffinity(0))
        process = start(tmp_path / "worker.log", EVALHUB_WORKER_PROCESSES="")
        try:
            names = {f"{TEST_QUEUE}-{index}" for index in range(1, cores + 1)}
            wait_until(lambda: reported() == names, timeout=90, what=f"{cores} worker processes to report")
            children = children_of(process.pid)
            assert len(children) == cores

            process.terminate()  # the command alone, as a supervisor stops it
            assert process.wait(timeout=60) == 0
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
        assert subprocess.run(["pgrep", "-g", str(process.pid)], capture_output=True, text=True).stdout == ""

    def test_when_one_process_dies_it_stops_the_others_and_says_so(
        self, transactional_db: None, tmp_path: Path
    ) -> None:
        log_path = tmp_path / "worker.log"
        process = start(log_path, "--processes", "2")
        try:
            wait_until(lambda: len(reported()) == 2, timeout=90, what="two worker processes to report")
            first, _ = children_of(process.pid)
            os.kill(first, signal.SIGKILL)

            assert process.wait(timeout=60) != 0
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
        assert f"Worker process {first} exited with code -9; stopping the others." in log_path.read_text()
        assert subprocess.run(["pgrep", "-g", str(process.pid)], capture_output=True, text=True).stdout == ""
