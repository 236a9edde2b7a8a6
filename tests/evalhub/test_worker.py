from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from evalhub.models import WorkerHeartbeat
from evalhub.settings import names_a_pool
from evalhub.tasks import ping_worker
from tests.base import wait_until
from tests.conftest import TEST_QUEUE, start_worker, stop_worker


@pytest.mark.worker
class PingWorkerTests:
    def test_a_real_worker_executes_the_task_and_writes_to_the_database(self, worker: subprocess.Popen[bytes]) -> None:
        assert not WorkerHeartbeat.objects.exists()

        ping_worker.delay()

        beat = wait_until(WorkerHeartbeat.latest, timeout=60, what="the worker to record its heartbeat")
        assert beat.hostname.startswith(f"{TEST_QUEUE}@")
        assert beat.is_recent()
        assert worker.poll() is None


@pytest.mark.worker
class WorkerPoolTests:
    """settings.CELERY_WORKER_POOL: threads by default, and the pool the command line names when it names one
    (Celery took `--pool prefork` for "no pool given" and started threads; issue 23, finding 14)."""

    @pytest.mark.parametrize(
        ("flags", "banner"),
        [((), "(thread)"), (("--pool", "prefork", "--concurrency", "2"), "2 (prefork)"), (("-P", "solo"), "(solo)")],
    )
    def test_the_worker_starts_on_the_pool_asked_for(
        self, transactional_db: None, tmp_path: Path, flags: tuple[str, ...], banner: str
    ) -> None:
        log_path = tmp_path / "worker.log"
        process = start_worker(log_path, *flags)
        try:
            ping_worker.delay()
            wait_until(WorkerHeartbeat.latest, timeout=60, what="the worker to run a task")
        finally:
            stop_worker(process, log_path)

        (line,) = [line for line in log_path.read_text().splitlines() if "concurrency:" in line]
        assert line.strip().endswith(banner), line


class NamesAPoolTests:
    @pytest.mark.parametrize(
        ("argv", "named"),
        [
            (["celery", "-A", "evalhub", "worker"], False),
            (["celery", "-A", "evalhub", "worker", "--pool-start-method", "spawn"], False),
            (["celery", "worker", "--pool", "prefork"], True),
            (["celery", "worker", "--pool=prefork"], True),
            (["celery", "worker", "-P", "prefork"], True),
            (["celery", "worker", "-Pprefork"], True),
        ],
    )
    def test_it_sees_each_way_of_naming_a_pool(self, argv: list[str], named: bool) -> None:
        assert names_a_pool(argv) is named
