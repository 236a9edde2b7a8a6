"""A worker killed with SIGKILL in each phase of a run, then restarted within the stale window (real workers).

The restarted worker closes the run at once as lost (naming the phase), kills the stdio server the dead one left
(it ignores stdin EOF and SIGTERM), keeps the partial transcript, re-runs nothing, and runs the next run.
"""

from __future__ import annotations

import json
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
from runs.quota import quota_status
from runs.services import run_start
from scorers.models import Scorer
from scorers.services import scorer_save
from tests.base import make_demo_server, make_scenario, make_scripted_provider, wait_until
from tests.evalhub.mcp_client.helpers import process_alive
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call

STUBBORN_SERVER = "tests/runs/fixtures/stubborn_server.py"
# Well under the 60 s after which any reader would close the run anyway: the restart must be what closed it.
RESTART_CLOSES_WITHIN = 40


def judge(user: User, scripted: ScriptedServer) -> Scorer:
    scorer = Scorer(
        name="Slow judge",
        kind=Scorer.Kind.JUDGE,
        system_prompt="Judge it.",
        labels="GOOD|1\nBAD|0",
        judge_provider=make_scripted_provider(scripted.base_url, name="Judge", timeout=300),
        judge_model="gpt-4o",
    )
    return scorer_save(scorer=scorer, user=user)


def status_of(run: Run) -> str:
    return Run.objects.values_list("status", flat=True).get(pk=run.pk)


@pytest.mark.worker
class WorkerKilledInEachPhaseTests:
    @pytest.mark.parametrize("phase", ["connect", "model call 1", "tool call park", "score"])
    def test_the_restarted_worker_closes_the_run_kills_its_server_and_runs_the_next_one(
        self,
        workers: Callable[[], subprocess.Popen[bytes]],
        alice: User,
        scripted: ScriptedServer,
        tmp_path: Path,
        phase: str,
    ) -> None:
        pidfile = tmp_path / "server.pid"
        args = [STUBBORN_SERVER, str(pidfile), *(["--hang-initialize"] if phase == "connect" else [])]
        held = threading.Event()  # never set: the call it holds lasts until the worker dies
        parked: Callable[[], object]
        if phase == "connect":
            parked = pidfile.exists
        elif phase == "model call 1":
            scripted.script(Answer(body=completion(content="Never sent."), hold=held))
            parked = lambda: scripted.received  # noqa: E731
        elif phase == "tool call park":
            scripted.script(Answer(body=completion(tool_calls=[tool_call("c1", "park", "{}")])))
            parked = Path(f"{pidfile}.parked").exists
        else:
            verdict = completion(content=json.dumps({"label": "GOOD", "reason": "Fine."}))
            scripted.script(Answer(body=completion(content="Done.")), Answer(body=verdict, hold=held))
            parked = lambda: len(scripted.received) == 2  # noqa: E731
        provider = make_scripted_provider(scripted.base_url, timeout=300)
        scenario = make_scenario(make_demo_server(name="Stubborn", args=args), provider=provider)
        if phase == "score":
            scenario.scorers.set([judge(alice, scripted)])

        first = workers()
        run = run_start(scenario=scenario, user=alice)
        wait_until(parked, timeout=60, what=f"the run to park in {phase}")
        wait_until(lambda: Run.objects.get(pk=run.pk).phase == phase, timeout=10, what=f"the phase {phase!r}")
        server_pid = int(pidfile.read_text())
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=10)

        assert status_of(run) == "running"
        # The server ignores stdin EOF and SIGTERM; only scoring comes after the worker stopped it.
        assert process_alive(server_pid) == (phase != "score")

        workers()
        wait_until(lambda: status_of(run) == "error", timeout=RESTART_CLOSES_WITHIN, what="the restart to close it")

        run.refresh_from_db()
        assert (run.stop_reason, run.passed, run.score) == ("error", None, None)
        assert (run.verdict, run.failure_cause) == ("inconclusive", "harness")
        assert run.error == lost_error(phase, f"its worker {run.worker} was restarted")
        assert run.error["message"] == (  # type: ignore[index]
            f"worker lost: its worker {run.worker} was restarted during “{phase}”. The run used one of today's "
            "quota runs and is not retried automatically, because its tool calls may already have had effects; "
            "use Run again to start a new run."
        )
        steps = run.transcript["steps"]
        if phase in ("connect", "model call 1"):
            assert steps == []
        elif phase == "tool call park":
            # The model's step is kept; the call it started never returned, so it has no result.
            (step,) = steps
            assert (step["toolCalls"], step["toolResults"]) == ([{"toolName": "park", "args": {}}], [])
        else:
            assert run.final_text == "Done." and not run.score_results.exists()
        wait_until(lambda: not process_alive(server_pid), timeout=10, what="the leftover server to be killed")

        next_run = run_start(scenario=make_scenario(make_demo_server(), name="Next"), user=alice)
        wait_until(lambda: status_of(next_run) == "done", timeout=60, what="the next run on the new worker")

        assert Run.objects.get(pk=next_run.pk).passed is True
        # Nothing was re-run behind the user's back; the lost run kept its quota slot.
        assert Run.objects.count() == 2 and status_of(run) == "error"
        assert quota_status().used == 2
