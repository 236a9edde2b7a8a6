"""A run leaves `running` once, by whoever gets there first: its live worker or the reaper (real worker process).

A judge (or a model call) is held by the scripted endpoint, so the run sits in that phase for as long as the test
needs, then the test releases it.
"""

from __future__ import annotations

import json
import subprocess
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from evalhub.scenarios.models import Scenario
from runs.heartbeat import STALE_AFTER, runs_reap_stale
from runs.models import Run
from runs.services import run_start
from scorers.models import Scorer
from scorers.services import scorer_save
from tests.base import make_demo_server, make_scenario, make_scripted_provider, wait_until
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call

STUBBORN_SERVER = "tests/runs/fixtures/stubborn_server.py"
VERDICT_BODY = completion(content=json.dumps({"label": "GOOD", "reason": "It answered."}))


def judged_scenario(user: User, scripted: ScriptedServer) -> Scenario:
    provider = make_scripted_provider(scripted.base_url, timeout=300)
    scorer = Scorer(
        name="Slow judge",
        kind=Scorer.Kind.JUDGE,
        system_prompt="Judge it.",
        labels="GOOD|1\nBAD|0",
        judge_provider=provider,
        judge_model="gpt-4o",
    )
    scenario = make_scenario(make_demo_server(), provider=provider)
    scenario.scorers.set([scorer_save(scorer=scorer, user=user)])
    return scenario


def reap_as_if_silent_for_a_minute() -> int:
    """What any page or API call would do once the run had been silent for STALE_AFTER."""
    return runs_reap_stale(now=timezone.now() + STALE_AFTER + timedelta(seconds=1))


def finish_next_run(user: User) -> None:
    """The worker runs one task at a time: once a later run is done, it has finished with the earlier one."""
    later = run_start(scenario=make_scenario(make_demo_server(name="Later server"), name="Later"), user=user)
    wait_until(lambda: Run.objects.get(pk=later.pk).status == "done", timeout=60, what="the later run")


@pytest.mark.worker
class ReapingRaceTests:
    def test_a_run_keeps_beating_while_it_is_scored_and_the_reaper_leaves_it_done(
        self, worker: subprocess.Popen[bytes], alice: User, scripted: ScriptedServer
    ) -> None:
        judging = threading.Event()
        scripted.script(Answer(body=completion(content="Sunny.")), Answer(body=VERDICT_BODY, hold=judging))
        run = run_start(scenario=judged_scenario(alice, scripted), user=alice)
        wait_until(lambda: len(scripted.received) == 2, timeout=60, what="the judge's call")
        scoring_since = Run.objects.get(pk=run.pk).heartbeat_at
        assert scoring_since is not None

        beating = Run.objects.filter(pk=run.pk, phase="score", heartbeat_at__gt=scoring_since)
        beat = wait_until(lambda: beating.values_list("heartbeat_at", flat=True).first(), timeout=30, what="a beat")
        assert Run.objects.get(pk=run.pk).status == "running"
        judging.set()
        wait_until(lambda: Run.objects.get(pk=run.pk).status == "done", timeout=30, what="the run to be scored")

        assert reap_as_if_silent_for_a_minute() == 0
        run.refresh_from_db()
        assert (run.status, run.score, run.passed, run.error) == ("done", 1.0, True, None)
        assert run.heartbeat_at is not None and run.heartbeat_at >= beat

    def test_a_run_closed_as_lost_while_it_is_scored_stays_lost_when_its_worker_finishes(
        self, worker: subprocess.Popen[bytes], alice: User, scripted: ScriptedServer, tmp_path: Path
    ) -> None:
        judging = threading.Event()
        scripted.script(Answer(body=completion(content="Sunny.")), Answer(body=VERDICT_BODY, hold=judging))
        run = run_start(scenario=judged_scenario(alice, scripted), user=alice)
        wait_until(lambda: len(scripted.received) == 2, timeout=60, what="the judge's call")

        assert reap_as_if_silent_for_a_minute() == 1
        judging.set()
        finish_next_run(alice)

        run.refresh_from_db()
        assert (run.status, run.score, run.passed) == ("error", None, None)
        assert (run.verdict, run.failure_cause) == ("inconclusive", "harness")  # a lost worker decides nothing
        assert (run.error["kind"], run.error["step"]) == ("worker_lost", "score")  # type: ignore[index]
        assert not run.score_results.exists()
        log = (tmp_path / "worker-1.log").read_text()
        assert f"Run {run.pk} was closed as lost while its worker was still working on it (during 'score')" in log

    def test_a_worker_whose_run_was_closed_during_a_model_call_stops_before_calling_tools(
        self, worker: subprocess.Popen[bytes], alice: User, scripted: ScriptedServer, tmp_path: Path
    ) -> None:
        answering = threading.Event()
        scripted.script(Answer(body=completion(tool_calls=[tool_call("c1", "park", "{}")]), hold=answering))
        server = make_demo_server(name="Stubborn", args=[STUBBORN_SERVER, str(tmp_path / "server.pid")])
        provider = make_scripted_provider(scripted.base_url, timeout=300)
        run = run_start(scenario=make_scenario(server, provider=provider), user=alice)
        wait_until(lambda: scripted.received, timeout=60, what="the model call")

        assert reap_as_if_silent_for_a_minute() == 1
        answering.set()
        finish_next_run(alice)

        run.refresh_from_db()
        assert (run.status, run.error["step"]) == ("error", "model call 1")  # type: ignore[index]
        assert run.transcript["steps"] == [] and run.model_calls == []
        assert not Path(f"{tmp_path / 'server.pid'}.parked").exists()
