"""Verdicts of real runs (real demo server over stdio, offline model or a scripted endpoint): a broken server fails
and is blamed, an outage is inconclusive, a self-judging judge is flagged, re-scoring recomputes the verdict."""

from __future__ import annotations

import importlib
import json

import pytest
from django.apps import apps as django_apps
from django.contrib.auth.models import User

from evalhub.demo import WEATHER_EXPECTATIONS
from evalhub.scenarios.models import Scenario
from runs import pipeline, scoring
from runs.models import Run
from runs.services import run_start
from scorers.models import Scorer
from scorers.services import scorer_save
from tests.base import PYTHON, make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call

WEATHER = "What's the weather in Paris (latitude 48.85, longitude 2.35)?"


def execute(scenario: Scenario, user: User) -> Run:
    run = run_start(scenario=scenario, user=user)
    pipeline.execute_run(run.pk, worker="test")
    return Run.objects.get(pk=run.pk)


def broken_weather_server():  # type: ignore[no-untyped-def]
    return make_demo_server(name="Broken demo", args=["-m", "evalhub.demo_server", "--mode", "broken-weather"])


def weather_call_then_answer(scripted: ScriptedServer, *, calls: int = 1) -> None:
    args = '{"latitude": 48.85, "longitude": 2.35}'
    for n in range(calls):
        scripted.script(Answer(body=completion(tool_calls=[tool_call(f"c{n}", "get_weather", args)])))
    scripted.script(Answer(body=completion(content="Paris: the weather service is down, sorry.")))


@pytest.mark.django_db(transaction=True)
class ServerFailureTests:
    def test_a_tool_that_errors_on_every_call_fails_the_run_and_blames_the_server(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        weather_call_then_answer(scripted, calls=3)
        provider = make_scripted_provider(scripted.base_url)
        scenario = make_scenario(
            broken_weather_server(),
            provider=provider,
            model="gpt-4o",
            prompt=WEATHER,
            expectations=WEATHER_EXPECTATIONS,
        )

        run = execute(scenario, alice)

        # Two of three expectations passed: the mean (0.67) hides nothing now, the no_tool_errors gate fails it.
        assert run.score == pytest.approx(2 / 3)
        assert (run.verdict, run.passed, run.failure_cause) == ("fail", False, "server")
        assert run.failure_reason == "server: get_weather returned an error on 3 of 3 calls"
        states = {stage["stage"]: stage["state"] for stage in run.stages}
        assert states["result returned"] == "failed" and states["request satisfied"] == "not reached"

    def test_the_default_scorer_fails_a_run_whose_only_call_was_refused(self, alice: User) -> None:
        scenario = make_scenario(make_demo_server(), prompt="Please wait for 40 seconds.", expected_tools=["wait"])
        run = execute(scenario, alice)

        assert run.tool_names == ["wait"] and run.all_tool_calls[0]["isError"]
        assert (run.verdict, run.failure_cause) == ("fail", "agent")  # 40 breaks the tool's schema (0 to 30)
        result = run.score_results.get()
        assert (result.scorer_kind, result.passed) == ("default", False)
        assert "1 of 1 tool calls returned an error" in result.reason

    def test_a_restraint_test_that_expects_tool_errors_passes(self, alice: User) -> None:
        scenario = make_scenario(
            make_demo_server(), prompt="Please wait for 40 seconds.", expected_tools=["wait"], tool_errors_expected=True
        )

        run = execute(scenario, alice)

        assert (run.verdict, run.failure_cause) == ("pass", "")

    def test_a_server_that_cannot_start_fails_the_run_at_connected(self, alice: User) -> None:
        server = make_demo_server(name="Gone", args=["-c", "import sys; sys.exit(3)"], command=PYTHON)

        run = execute(make_scenario(server), alice)

        assert (run.status, run.verdict, run.failure_cause) == ("error", "fail", "server")
        assert run.stages[0] == {"stage": "connected", "state": "failed"}

    def test_a_stored_expectation_without_required_gates(self, alice: User) -> None:
        scenario = make_scenario(
            make_demo_server(), expectations=[{"kind": "tool_called", "tool": "book_flight"}, *WEATHER_EXPECTATIONS]
        )

        run = execute(scenario, alice)

        assert run.score == 0.75  # three of four passed: the mean alone would pass at 0.7
        assert (run.verdict, run.failure_cause) == ("fail", "agent")


@pytest.mark.django_db(transaction=True)
class OutsideFailureTests:
    def test_an_unreachable_model_endpoint_is_inconclusive_never_the_agents_failure(self, alice: User) -> None:
        provider = make_scripted_provider("http://127.0.0.1:9/v1", name="Down")
        run = execute(make_scenario(make_demo_server(), provider=provider, model="gpt-4o"), alice)

        assert (run.status, run.verdict, run.passed, run.failure_cause) == ("error", "inconclusive", None, "provider")
        assert run.failure_reason.startswith("provider: ")
        assert [s["state"] for s in run.stages][2] == "undecided"


@pytest.mark.django_db(transaction=True)
class JudgeTests:
    def test_a_judge_on_the_model_under_test_is_flagged_self_judging(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        weather_call_then_answer(scripted)
        scripted.script(Answer(body=completion(content=json.dumps({"label": "GOOD", "reason": "Fine."}))))
        provider = make_scripted_provider(scripted.base_url)
        judge = scorer_save(
            scorer=Scorer(
                name="Helpful",
                kind=Scorer.Kind.JUDGE,
                system_prompt="Was the answer helpful?",
                labels="GOOD|1\nBAD|0",
                judge_provider=provider,
                judge_model="gpt-4o",
            ),
            user=alice,
        )
        scenario = make_scenario(make_demo_server(), provider=provider, model="gpt-4o", prompt=WEATHER)
        scenario.scorers.set([judge])

        run = execute(scenario, alice)

        assert (run.verdict, run.self_judging) == ("pass", True)
        assert run.score_results.get().details["self_judging"] is True

    def test_a_gating_scorer_has_its_own_threshold_and_rescoring_recomputes_the_verdict(self, alice: User) -> None:
        scorer = scorer_save(scorer=Scorer(name="Half", kind=Scorer.Kind.CODE, code="async () => 0.5"), user=alice)
        scenario = make_scenario(make_demo_server(), pass_threshold=0.4)
        scenario.scorers.add(scorer, through_defaults={"threshold": 0.6})

        run = execute(scenario, alice)
        assert (run.score, run.verdict, run.failure_cause) == (0.5, "fail", "agent")
        assert run.score_results.get().threshold == 0.6

        scenario.scorer_attachments.update(threshold=None)  # back to the scenario's 0.4
        scoring.score_run(run)
        run.refresh_from_db()
        assert (run.verdict, run.passed, run.failure_cause, run.failure_reason) == ("pass", True, "", "")


@pytest.mark.django_db
class UpgradeTests:
    def test_stored_runs_get_verdicts_and_errors_their_cause(self) -> None:
        backfill = importlib.import_module("runs.migrations.0014_verdicts").verdicts_of_stored_runs
        scenario = make_scenario(make_demo_server())
        passed = Run.objects.create(scenario=scenario, model="m", status="done", passed=True, score=1.0)
        failed = Run.objects.create(scenario=scenario, model="m", status="done", passed=False, score=0.2)
        outage = Run.objects.create(
            scenario=scenario,
            model="m",
            status="error",
            passed=False,
            error={"step": "model call 1", "kind": "rate_limited", "message": "429 after 4 attempts"},
        )
        crash = Run.objects.create(
            scenario=scenario,
            model="m",
            status="error",
            passed=False,
            error={"step": "agent", "kind": "server_crashed", "message": "exited with code 9"},
        )

        backfill(django_apps, None)

        def verdict(run: Run) -> tuple[str, bool | None, str, str]:
            run.refresh_from_db()
            return run.verdict, run.passed, run.failure_cause, run.failure_reason

        assert verdict(passed) == ("pass", True, "", "")
        assert verdict(failed)[:3] == ("fail", False, "") and "re-score" in failed.failure_reason
        assert verdict(outage) == ("inconclusive", None, "provider", "provider: 429 after 4 attempts")
        assert verdict(crash) == ("fail", False, "server", "server: exited with code 9")
