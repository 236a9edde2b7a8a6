"""Per-call max_tokens and run-wide token and cost budgets, on the scripted OpenAI-compatible endpoint."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from runs import pipeline
from runs.models import Run
from runs.services import run_start
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call

PRICES = {"gpt-4o": {"input": "2.50", "output": "10"}}
# Each scripted call: 1,200 input + 30 output tokens = 1,230 tokens, $0.0033 at PRICES.
LOOPING = completion(tool_calls=[tool_call("c", "get_weather", '{"latitude": 1, "longitude": 1}')])


def execute(scripted: ScriptedServer, user: User, *, prices: Any = None, **scenario: Any) -> Run:
    provider = make_scripted_provider(scripted.base_url, price_overrides=prices or {})
    run = run_start(scenario=make_scenario(make_demo_server(), provider=provider, **scenario), user=user)
    pipeline.execute_run(run.pk, worker="test")
    return Run.objects.get(pk=run.pk)


@pytest.mark.django_db(transaction=True)
class BudgetTests:
    def test_max_tokens_is_sent_with_every_model_call(self, alice: User, scripted: ScriptedServer) -> None:
        scripted.script(Answer(body=LOOPING), Answer(body=completion(content="Sunny.")))

        run = execute(scripted, alice, max_tokens=256)

        assert [request.json["max_tokens"] for request in scripted.received] == [256, 256]
        assert run.settings["max_tokens"] == 256

    def test_the_token_budget_stops_the_run_before_the_next_model_call(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        scripted.script(*[Answer(body=LOOPING)] * 3)

        run = execute(scripted, alice, token_budget=2000)

        assert (run.status, run.stop_reason) == ("done", "token_budget")
        assert len(scripted.received) == 2 and run.input_tokens + run.output_tokens == 2460
        assert len(run.all_tool_calls) == 2  # the second call's tools ran; no third model call was made
        assert run.score is not None  # a budget stop is a finished run, scored like max_turns

    def test_the_cost_budget_stops_the_run_when_the_price_is_known(self, alice: User, scripted: ScriptedServer) -> None:
        scripted.script(*[Answer(body=LOOPING)] * 3)

        run = execute(scripted, alice, prices=PRICES, cost_budget_usd=Decimal("0.005"))

        assert (run.stop_reason, run.cost_usd, len(scripted.received)) == ("cost_budget", Decimal("0.006600"), 2)
        assert run.settings["cost_budget_usd"] == "0.005"

    def test_an_unknown_price_cannot_stop_the_run_and_the_page_says_so(
        self, alice: User, alice_client: Client, scripted: ScriptedServer
    ) -> None:
        scripted.script(Answer(body=LOOPING), Answer(body=LOOPING), Answer(body=completion(content="Done.")))

        run = execute(scripted, alice, cost_budget_usd=Decimal("0.0001"))

        assert (run.stop_reason, run.cost_usd, len(scripted.received)) == ("completed", None, 3)
        html = alice_client.get(f"/runs/{run.pk}/").content.decode()
        assert "Budget $0.0001" in html and "cost unknown: not enforced" in html

    def test_a_run_that_answers_in_the_call_crossing_the_budget_has_completed(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        scripted.script(Answer(body=completion(content="Sunny.", prompt_tokens=5000)))

        run = execute(scripted, alice, token_budget=1000)

        assert (run.stop_reason, run.final_text) == ("completed", "Sunny.")

    def test_the_run_page_names_the_budget_stop(
        self, alice: User, alice_client: Client, scripted: ScriptedServer
    ) -> None:
        scripted.script(*[Answer(body=LOOPING)] * 2)
        run = execute(scripted, alice, token_budget=1000)

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert "Token budget reached" in html and "Budget 1000 tokens" in html
