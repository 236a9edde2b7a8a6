"""The worker's own schedule (real worker process): it says it is alive while busy, and reaps without any reader."""

from __future__ import annotations

import subprocess
import threading
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from evalhub.models import WorkerHeartbeat
from runs.heartbeat import STALE_AFTER
from runs.models import Run
from runs.services import run_start
from tests.base import make_demo_server, make_scenario, make_scripted_provider, wait_until
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion


@pytest.mark.worker
class WorkerHousekeepingTests:
    def test_health_shows_a_worker_that_is_busy_with_a_run_without_any_ping(
        self, worker: subprocess.Popen[bytes], alice: User, scripted: ScriptedServer, client: Client
    ) -> None:
        answering = threading.Event()
        scripted.script(Answer(body=completion(content="Sunny."), hold=answering))
        provider = make_scripted_provider(scripted.base_url, timeout=300)
        run_start(scenario=make_scenario(make_demo_server(), provider=provider), user=alice)
        wait_until(lambda: scripted.received, timeout=60, what="the run's model call")
        busy_since = timezone.now()

        # Its only task is parked in a model call, yet the worker keeps saying it is alive.
        wait_until(
            lambda: WorkerHeartbeat.objects.filter(last_seen__gt=busy_since).exists(),
            timeout=30,
            what="the busy worker's heartbeat",
        )

        worker_health = client.get("/health").json()["worker"]
        assert worker_health["status"] == "ok"
        assert worker_health["last_seen"] == WorkerHeartbeat.latest().last_seen.isoformat()  # type: ignore[union-attr]
        answering.set()

    def test_the_worker_closes_a_dead_workers_run_on_its_own_schedule(
        self, worker: subprocess.Popen[bytes], alice: User
    ) -> None:
        wait_until(WorkerHeartbeat.latest, timeout=60, what="the worker to start")
        silent_since = timezone.now() - STALE_AFTER - timedelta(seconds=1)
        run = Run.objects.create(
            scenario=make_scenario(make_demo_server()),
            model="evalhub-offline",
            status=Run.Status.RUNNING,
            started_at=silent_since,
            heartbeat_at=silent_since,
            worker="celery@another-machine",
            phase="model call 2",
        )

        # Nobody opens a page or calls the API: the worker's own schedule closes it.
        wait_until(lambda: Run.objects.get(pk=run.pk).status == "error", timeout=30, what="the worker to reap it")

        run.refresh_from_db()
        assert run.error == {
            "step": "model call 2",
            "kind": "worker_lost",
            "message": (
                f"worker lost: its worker stopped (no heartbeat since {silent_since:%H:%M:%S} UTC) during “model call "
                "2”. The run used one of today's quota runs and is not retried automatically, because its tool "
                "calls may already have had effects; use Run again to start a new run."
            ),
        }
