"""A run scored by its scenario's code scorers and LLM judges: real V8 sandbox, scripted judge endpoint."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from django.contrib.auth.models import User

from evalhub.demo import RESTRAINT_JUDGE_PROMPT
from evalhub.providers.models import Provider
from evalhub.scenarios.models import Scenario
from runs import pipeline, scoring
from runs.models import Run
from runs.services import run_start
from scorers.contract import EXAMPLE_SCORER
from scorers.models import Scorer
from scorers.services import scorer_save
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion


def code_scorer(user: User, name: str, code: str) -> Scorer:
    return scorer_save(scorer=Scorer(name=name, kind=Scorer.Kind.CODE, code=code), user=user)


def judge_scorer(user: User, provider: Provider | None, model: str = "gpt-4o") -> Scorer:
    scorer = Scorer(
        name="Restraint judge",
        kind=Scorer.Kind.JUDGE,
        system_prompt=RESTRAINT_JUDGE_PROMPT,
        labels="GOOD|1\nBAD|0",
        judge_provider=provider,
        judge_model=model if provider else "",
    )
    return scorer_save(scorer=scorer, user=user)


def execute(scenario: Scenario, user: User) -> Run:
    run = run_start(scenario=scenario, user=user)
    pipeline.execute_run(run.pk, worker="test")
    return Run.objects.get(pk=run.pk)


def verdict(label: str, reason: str) -> Answer:
    return Answer(body=completion(content=json.dumps({"label": label, "reason": reason}), prompt_tokens=900))


@pytest.mark.django_db(transaction=True)
class ScoringTests:
    def test_the_score_is_the_mean_of_a_code_scorer_and_a_judge(self, alice: User, scripted: ScriptedServer) -> None:
        scripted.script(verdict("BAD", "The agent called a tool."))
        judge_provider = make_scripted_provider(
            scripted.base_url, price_overrides={"gpt-4o": {"input": "2.5", "output": "10"}}
        )
        scenario = make_scenario(make_demo_server())
        scenario.scorers.set(
            [code_scorer(alice, "Weather coords", EXAMPLE_SCORER), judge_scorer(alice, judge_provider)]
        )

        run = execute(scenario, alice)

        code, judged = run.score_results.order_by("scorer_kind")
        assert (code.scorer_kind, code.score, code.outcome, code.scorer_version) == ("code", 1.0, "ok", 1)
        assert (judged.label, judged.score, judged.reason) == ("BAD", 0.0, "The agent called a tool.")
        assert (judged.input_tokens, judged.cost_usd) == (900, Decimal("0.002550"))
        assert run.score == 0.5 and run.passed is False
        # The judge saw the whole transcript, fenced as untrusted data.
        sent = json.dumps(scripted.received[0].json["messages"])
        assert "get_weather" in sent and "untrusted" in sent

    def test_console_output_and_errors_are_kept_and_an_error_counts_as_zero(self, alice: User) -> None:
        scenario = make_scenario(make_demo_server())
        chatty = code_scorer(
            alice, "Chatty", 'async ({ output }) => { console.log("calls:", output.allToolCalls.length); return 1; }'
        )
        broken = code_scorer(alice, "Broken", "async () => { throw new Error('no luck'); }")
        scenario.scorers.set([chatty, broken])

        run = execute(scenario, alice)

        results = {r.scorer_name: r for r in run.score_results.all()}
        assert results["Chatty"].console == [{"level": "log", "text": "calls: 1"}]
        assert results["Broken"].outcome == "errored" and results["Broken"].score == 0.0
        assert "no luck" in results["Broken"].error
        assert run.score == 0.5

    def test_a_skipped_gating_judge_leaves_the_run_inconclusive_never_failed(self, alice: User) -> None:
        scenario = make_scenario(make_demo_server())
        scenario.scorers.set([code_scorer(alice, "Always", "async () => 1"), judge_scorer(alice, None)])

        run = execute(scenario, alice)

        skipped = run.score_results.get(scorer_kind="judge")
        assert skipped.outcome == "skipped" and skipped.score is None and skipped.gating
        assert skipped.reason == "skipped — choose a judge model in Settings"
        assert (run.score, run.passed, run.verdict, run.failure_cause) == (1.0, None, "inconclusive", "judge")
        assert run.failure_reason.startswith("judge: ")

    def test_a_skipped_advisory_judge_is_left_out_and_the_run_passes(self, alice: User) -> None:
        scenario = make_scenario(make_demo_server())
        judge = judge_scorer(alice, None)
        scenario.scorers.set([code_scorer(alice, "Always", "async () => 1")])
        scenario.scorers.add(judge, through_defaults={"advisory": True})

        run = execute(scenario, alice)

        assert not run.score_results.get(scorer_kind="judge").gating
        assert (run.score, run.passed, run.verdict, run.failure_cause) == (1.0, True, "pass", "")

    def test_rescoring_keeps_history_and_uses_the_new_version(self, alice: User) -> None:
        scenario = make_scenario(make_demo_server())
        scorer = code_scorer(alice, "Strict", "async () => 0.2")
        scenario.scorers.set([scorer])
        run = execute(scenario, alice)

        scorer.code = "async () => 0.9"
        scorer_save(scorer=scorer, user=alice)
        scoring.score_run(run)

        old, new = run.score_results.order_by("created_at", "id")
        assert (old.is_current, old.score, old.scorer_version) == (False, 0.2, 1)
        assert (new.is_current, new.score, new.scorer_version) == (True, 0.9, 2)
        run.refresh_from_db()
        assert run.score == 0.9 and run.passed is True
