"""One real worker process, started as the README starts it (no pool or concurrency flags), carries many runs at
once: shown by a model endpoint that holds every call until all of them are waiting, not by timing."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from runs.heartbeat import lost_error
from runs.models import Run
from runs.services import run_start
from tests.base import make_demo_server, make_scenario, make_scripted_provider, wait_until
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion

IN_FLIGHT = 12
STUBBORN_SERVER = "tests/runs/fixtures/stubborn_server.py"


def statuses(runs: list[Run]) -> list[str]:
    by_pk = dict(Run.objects.filter(pk__in=[run.pk for run in runs]).values_list("pk", "status"))
    return [by_pk[run.pk] for run in runs]


def held_runs(alice: User, scripted: ScriptedServer, held: threading.Event, count: int) -> list[Run]:
    """`count` runs whose first model call waits for `held`; each has its own stdio demo server process."""
    scripted.script(*(Answer(body=completion(content="Done."), hold=held) for _ in range(count)))
    provider = make_scripted_provider(scripted.base_url, timeout=300)
    scenario = make_scenario(make_demo_server(), provider=provider, expected_tools=[])
    return [run_start(scenario=scenario, user=alice) for _ in range(count)]


@pytest.mark.worker
class OneWorkerManyRunsTests:
    def test_one_worker_process_has_every_run_in_a_model_call_at_once(
        self, worker: subprocess.Popen[bytes], alice: User, scripted: ScriptedServer
    ) -> None:
        held = threading.Event()
        runs = held_runs(alice, scripted, held, IN_FLIGHT)

        # No call is answered before all are waiting: only runs in flight together get there.
        wait_until(lambda: len(scripted.received) == IN_FLIGHT, timeout=90, what=f"{IN_FLIGHT} model calls at once")
        assert statuses(runs) == ["running"] * IN_FLIGHT
        held.set()
        wait_until(lambda: statuses(runs) == ["done"] * IN_FLIGHT, timeout=60, what="every run to finish")

        finished = Run.objects.filter(pk__in=[run.pk for run in runs])
        assert {(run.final_text, run.stop_reason) for run in finished} == {("Done.", "completed")}
        assert len({run.worker for run in finished}) == 1  # one worker process carried them all

    def test_a_hung_server_does_not_stall_the_other_runs(
        self, worker: subprocess.Popen[bytes], alice: User, tmp_path: Path
    ) -> None:
        pidfile = tmp_path / "server.pid"
        hung_server = make_demo_server(name="Hangs", args=[STUBBORN_SERVER, str(pidfile), "--hang-initialize"])
        hung = run_start(scenario=make_scenario(hung_server, name="Hung", time_limit_seconds=20), user=alice)
        wait_until(pidfile.exists, timeout=60, what="the hung server to start")
        scenario = make_scenario(make_demo_server())
        others = [run_start(scenario=scenario, user=alice) for _ in range(5)]

        wait_until(lambda: statuses(others) == ["done"] * 5, timeout=90, what="the other runs to finish")

        assert statuses([hung]) == ["running"]
        assert {run.passed for run in Run.objects.filter(pk__in=[run.pk for run in others])} == {True}
        wait_until(lambda: statuses([hung]) == ["done"], timeout=40, what="the hung run's time limit")
        assert Run.objects.get(pk=hung.pk).stop_reason == "time_limit"

    def test_kill_9_with_many_runs_in_flight_closes_every_one_as_lost(
        self, workers: Callable[[], subprocess.Popen[bytes]], alice: User, scripted: ScriptedServer
    ) -> None:
        held = threading.Event()  # never set: the calls last until the worker dies
        first = workers()
        runs = held_runs(alice, scripted, held, IN_FLIGHT)
        wait_until(lambda: len(scripted.received) == IN_FLIGHT, timeout=90, what=f"{IN_FLIGHT} model calls at once")
        wait_until(
            lambda: (
                set(Run.objects.filter(pk__in=[run.pk for run in runs]).values_list("phase", flat=True))
                == {"model call 1"}
            ),
            timeout=10,
            what="every run's phase to be its model call",
        )

        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)
        assert statuses(runs) == ["running"] * IN_FLIGHT

        workers()
        wait_until(lambda: statuses(runs) == ["error"] * IN_FLIGHT, timeout=40, what="the restart to close them")

        for run in Run.objects.filter(pk__in=[run.pk for run in runs]):
            assert run.error == lost_error("model call 1", f"its worker {run.worker} was restarted")
            assert (run.stop_reason, run.passed, run.transcript["steps"]) == ("error", None, [])
            assert (run.verdict, run.failure_cause) == ("inconclusive", "harness")
        # Nothing was re-run: the redelivered messages (if any) found their runs no longer queued.
        assert Run.objects.count() == IN_FLIGHT
