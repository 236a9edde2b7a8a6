from __future__ import annotations

import subprocess

import pytest

from evalhub.models import WorkerHeartbeat
from evalhub.tasks import ping_worker
from tests.base import wait_until
from tests.conftest import TEST_QUEUE


@pytest.mark.worker
class PingWorkerTests:
    def test_a_real_worker_executes_the_task_and_writes_to_the_database(self, worker: subprocess.Popen[bytes]) -> None:
        assert not WorkerHeartbeat.objects.exists()

        ping_worker.delay()

        beat = wait_until(WorkerHeartbeat.latest, timeout=60, what="the worker to record its heartbeat")
        assert beat.hostname.startswith(f"{TEST_QUEUE}@")
        assert beat.is_recent()
        assert worker.poll() is None
