"""Runs executed by a real Celery worker process on the configured broker and database."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from runs.heartbeat import STALE_AFTER, runs_reap_stale
from runs.models import Run
from runs.services import run_cancel, run_start
from tests.base import make_demo_server, make_scenario, make_scripted_provider, wait_until
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call


def status_of(run: Run) -> str:
    return Run.objects.values_list("status", flat=True).get(pk=run.pk)


@pytest.mark.worker
class WorkerRunTests:
    def test_the_worker_executes_a_queued_run_to_a_scored_result(
        self, worker: subprocess.Popen[bytes], alice: User
    ) -> None:
        run = run_start(scenario=make_scenario(make_demo_server()), user=alice)

        wait_until(lambda: status_of(run) == "done", timeout=60, what="the worker to finish the run")

        run.refresh_from_db()
        assert (run.score, run.passed, run.stop_reason) == (1.0, True, "completed"), (run.error, run.score_reason)
        assert run.worker.startswith("evalhub-test-")
        assert run.tool_names == ["get_weather"]

    def test_a_killed_worker_leaves_a_run_that_is_marked_lost_with_its_transcript(
        self, worker: subprocess.Popen[bytes], alice: User, scripted: ScriptedServer
    ) -> None:
        scripted.script(Answer(body=completion(tool_calls=[tool_call("c1", "wait", '{"seconds": 30}')])))
        provider = make_scripted_provider(scripted.base_url)
        run = run_start(scenario=make_scenario(make_demo_server(), provider=provider), user=alice)
        wait_until(lambda: Run.objects.get(pk=run.pk).transcript["steps"], timeout=60, what="the run's first step")

        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
        assert status_of(run) == "running"
        assert runs_reap_stale() == 0  # Its heartbeat is still fresh: it might only be slow.

        reaped = runs_reap_stale(now=timezone.now() + STALE_AFTER + timedelta(seconds=1))

        run.refresh_from_db()
        assert reaped == 1
        assert (run.status, run.stop_reason, run.passed) == ("error", "error", None)
        assert (run.verdict, run.failure_cause) == ("inconclusive", "harness")
        assert run.error["message"].startswith("worker lost")  # type: ignore[index]
        assert run.transcript["steps"][0]["toolCalls"] == [{"toolName": "wait", "args": {"seconds": 30}}]

    def test_cancelling_stops_the_tool_call_in_flight_at_once_and_keeps_the_transcript(
        self, worker: subprocess.Popen[bytes], alice: User, scripted: ScriptedServer
    ) -> None:
        # A 30 s tool: before the cancel reached calls in flight, the run waited for it to return.
        scripted.script(Answer(body=completion(tool_calls=[tool_call("c1", "wait", '{"seconds": 30}')])))
        provider = make_scripted_provider(scripted.base_url)
        run = run_start(scenario=make_scenario(make_demo_server(), provider=provider), user=alice)
        wait_until(
            lambda: Run.objects.get(pk=run.pk).phase == "tool call wait", timeout=60, what="the slow call to start"
        )

        asked = time.monotonic()
        run_cancel(run=run)
        wait_until(lambda: status_of(run) == "cancelled", timeout=10, what="the run to end cancelled")
        took = time.monotonic() - asked

        run.refresh_from_db()
        assert took < 5, took
        assert (run.stop_reason, run.verdict, run.failure_cause, run.score) == ("cancelled", "", "", None)
        assert run.transcript["steps"][0]["toolCalls"] == [{"toolName": "wait", "args": {"seconds": 30}}]
        [cut_off] = run.all_tool_calls
        assert (cut_off["toolName"], cut_off["cancelled"], cut_off["isError"]) == ("wait", True, False)
        assert "the run was cancelled" in cut_off["result"]["content"][0]["text"]
        assert cut_off["durationMs"] < 5000
        assert len(scripted.received) == 1
