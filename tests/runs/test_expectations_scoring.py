"""A scenario's expectations scored as one result, stored and shown as a checklist; the run facts (`run`) that code
scorers (real V8) and judges (scripted endpoint) receive. Real demo server over stdio, offline model or scripted."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.scenarios.models import Scenario
from runs import pipeline
from runs.models import Run
from runs.services import run_start
from runs.tasks import rescore_runs
from scorers.expectations.run_checks import STOP_REASONS
from scorers.models import Scorer
from scorers.services import scorer_save
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call

# The example, on a prompt whose latitude is out of range: two failures to explain, one pass.
WEATHER_CHECKS = [
    {
        "kind": "tool_called",
        "tool": "get_weather",
        "args": {"latitude": {"$range": [-90, 90]}, "longitude": {"$range": [-180, 180]}},
    },
    {"kind": "tool_not_called", "tool": "book_flight"},
    {"kind": "final_answer", "icontains": "Paris"},
]
OUT_OF_RANGE = "What's the weather at latitude 91, longitude 2.35?"
PRICES = {"gpt-4o": {"input": "2.50", "output": "10"}}


def execute(scenario: Scenario, user: User) -> Run:
    run = run_start(scenario=scenario, user=user)
    pipeline.execute_run(run.pk, worker="test")
    return Run.objects.get(pk=run.pk)


def weather_then_answer(scripted: ScriptedServer) -> None:
    scripted.script(
        Answer(body=completion(tool_calls=[tool_call("c1", "get_weather", '{"latitude": 48.85, "longitude": 2.35}')])),
        Answer(body=completion(content="Partly cloudy in Paris.", prompt_tokens=1500, completion_tokens=10)),
    )


def code_scorer(user: User, code: str) -> Scorer:
    return scorer_save(scorer=Scorer(name="Facts", kind=Scorer.Kind.CODE, code=code), user=user)


def outcomes(run: Run) -> list[dict[str, Any]]:
    details = run.score_results.get(is_current=True, scorer_kind="expectations").details
    assert details is not None
    return list(details["outcomes"])


@pytest.mark.django_db(transaction=True)
class ExpectationsScoringTests:
    def test_expectations_are_one_result_with_the_checklist_and_the_diff(self, alice: User) -> None:
        scenario = make_scenario(make_demo_server(), prompt=OUT_OF_RANGE, expectations=WEATHER_CHECKS)

        run = execute(scenario, alice)

        (result,) = run.score_results.all()
        assert (result.scorer_name, result.scorer_kind, result.outcome) == ("Expectations", "expectations", "ok")
        assert result.score == run.score == pytest.approx(1 / 3)
        assert run.passed is False and result.passed is False
        assert (
            run.score_reason
            == result.reason
            == (
                "1/3 expectations passed; failed: get_weather called with latitude in [-90, 90], longitude in "
                '[-180, 180]; final answer contains "Paris" in any case'
            )
        )
        called, not_called, answer = outcomes(run)
        assert (called["passed"], not_called["passed"], answer["passed"]) == (False, True, False)
        assert called["diff"] == [
            {
                "category": "argument_mismatch",
                "message": "latitude: expected number in [-90, 90], got 91",
                "call_index": 0,
            }
        ]
        assert answer["diff"] == [
            {"category": "answer_mismatch", "message": 'answer does not contain "Paris" in any case'}
        ]
        assert result.details["passed"] == 1 and result.details["total"] == 3  # type: ignore[index]

    def test_a_failed_gating_expectation_fails_the_run_whatever_the_score(self, alice: User) -> None:
        checks = [*WEATHER_CHECKS[1:2], *WEATHER_CHECKS[1:2], {**WEATHER_CHECKS[0], "required": True}]
        run = execute(make_scenario(make_demo_server(), prompt=OUT_OF_RANGE, expectations=checks), alice)

        assert run.score == pytest.approx(2 / 3)
        assert (run.passed, run.verdict, run.failure_cause) == (False, "fail", "agent")
        assert run.failure_reason.startswith("agent: ")

    def test_a_score_only_expectation_counts_toward_the_score_and_never_fails_the_run(self, alice: User) -> None:
        checks = [*WEATHER_CHECKS[1:2] * 3, {**WEATHER_CHECKS[0], "required": False}]
        run = execute(make_scenario(make_demo_server(), prompt=OUT_OF_RANGE, expectations=checks), alice)

        assert run.score == 0.75
        assert (run.passed, run.verdict) == (True, "pass")

    def test_expectations_and_scorers_are_averaged(self, alice: User) -> None:
        scenario = make_scenario(make_demo_server(), expectations=WEATHER_CHECKS)
        scenario.scorers.set([code_scorer(alice, "() => 0")])

        run = execute(scenario, alice)

        assert sorted((r.scorer_kind, r.score) for r in run.score_results.all()) == [
            ("code", 0.0),
            ("expectations", 1.0),
        ]
        assert run.score == 0.5

    def test_rescoring_uses_the_scenarios_current_expectations_and_keeps_the_old_checklist(self, alice: User) -> None:
        scenario = make_scenario(make_demo_server(), prompt=OUT_OF_RANGE, expectations=WEATHER_CHECKS)
        run = execute(scenario, alice)
        Scenario.objects.filter(pk=scenario.pk).update(expectations=WEATHER_CHECKS[1:2])

        rescore_runs([run.pk])  # the worker's task, run in this process

        run.refresh_from_db()
        assert run.score == 1.0 and run.score_reason == "1/1 expectations passed"
        old, new = run.score_results.order_by("created_at", "id")
        assert (old.is_current, len(old.details["outcomes"])) == (False, 3)  # type: ignore[index]
        assert (new.is_current, len(new.details["outcomes"])) == (True, 1)  # type: ignore[index]

    def test_an_invalid_stored_list_is_an_errored_result_counted_as_zero(self, alice: User) -> None:
        # Saved lists are validated; this one reaches the database behind the form's back, as an older rule would.
        typo = [{"kind": "tool_called", "tool": "get_weather", "args": {"latitude": {"$rnage": [-90, 90]}}}]
        run = execute(make_scenario(make_demo_server(), expectations=typo), alice)

        result = run.score_results.get()
        assert (result.outcome, result.score, result.details) == ("errored", 0.0, None)
        assert result.error == 'expectations[0].args.latitude: unknown matcher "$rnage"; did you mean "$range"?'
        assert run.score == 0.0

    def test_the_run_page_shows_the_checklist_with_expected_actual_and_diff(
        self, alice: User, alice_client: Client
    ) -> None:
        run = execute(make_scenario(make_demo_server(), prompt=OUT_OF_RANGE, expectations=WEATHER_CHECKS), alice)

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert html.count('class="check check-fail"') == 2 and html.count('class="check check-pass"') == 1
        assert (
            "<dt>Expected</dt><dd>get_weather called with latitude in [-90, 90], longitude in [-180, 180]</dd>" in html
        )
        assert (
            "<dt>Actual</dt><dd>get_weather called 1 time; the checked call (call 1) had 1 mismatched argument</dd>"
            in html
        )
        assert (
            '<span class="diff-category">argument mismatch</span> <span class="diff-message">latitude: expected '
            'number in [-90, 90], got 91</span> <a class="small" href="#call-1">call 1</a>'
        ) in html
        assert 'id="call-1"' in html
        assert "answer does not contain &quot;Paris&quot; in any case" in html

    def test_without_expectations_the_default_scorer_is_unchanged(self, alice: User) -> None:
        run = execute(make_scenario(make_demo_server()), alice)

        (result,) = run.score_results.all()
        assert (result.scorer_kind, result.score, result.details) == ("default", 1.0, None)
        assert run.score_reason == "All expected tools were called: get_weather."


@pytest.mark.django_db(transaction=True)
class RunFactsTests:
    def test_a_code_scorer_in_v8_receives_the_run_facts_beside_the_reference_keys(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        weather_then_answer(scripted)
        provider = make_scripted_provider(scripted.base_url, price_overrides=PRICES)
        scenario = make_scenario(make_demo_server(), provider=provider)
        scenario.scorers.set(
            [
                code_scorer(
                    alice,
                    "async (record) => { console.log(JSON.stringify(record.run)); "
                    "console.log(Object.keys(record).join()); return record.run.turns === 2 ? 1 : 0; }",
                )
            ]
        )

        run = execute(scenario, alice)

        result = run.score_results.get()
        assert (result.score, result.outcome) == (1.0, "ok")
        assert json.loads(result.console[0]["text"]) == {
            "model": "gpt-4o",
            "toolMode": "direct",
            "stopReason": "completed",
            "durationMs": run.duration_ms,
            "turns": 2,
            "usage": {"inputTokens": 2700, "outputTokens": 40, "totalTokens": 2740},
            "costUsd": 0.00715,
        }
        assert result.console[1]["text"] == "input,expected,output,run"

    def test_a_judge_is_sent_the_same_facts(self, alice: User, scripted: ScriptedServer) -> None:
        weather_then_answer(scripted)
        scripted.script(Answer(body=completion(content='{"label": "GOOD", "reason": "Within budget."}')))
        provider = make_scripted_provider(scripted.base_url, price_overrides=PRICES)
        judge = Scorer(
            name="Budget judge",
            kind=Scorer.Kind.JUDGE,
            system_prompt="Was the run frugal?",
            labels="GOOD|1\nBAD|0",
            judge_provider=provider,
            judge_model="gpt-4o",
        )
        scenario = make_scenario(make_demo_server(), provider=provider)
        scenario.scorers.set([scorer_save(scorer=judge, user=alice)])

        run = execute(scenario, alice)

        assert run.score_results.get().label == "GOOD"
        prompt = scripted.received[2].json["messages"][1]["content"]
        facts = (
            "[run facts]\nmodel: gpt-4o\nstop reason: completed\n"
            f"duration: {run.duration_ms} ms\nturns (model calls): 2\n"
            "tokens: 2700 input + 40 output = 2740 total\ncost: $0.007150\n</untrusted_transcript>"
        )
        assert facts in prompt


class StopReasonsTests:
    def test_the_engine_knows_every_stop_reason_a_run_can_have(self) -> None:
        assert tuple(Run.StopReason.values) == STOP_REASONS
