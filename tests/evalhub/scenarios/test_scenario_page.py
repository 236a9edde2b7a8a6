"""A scenario's page: how it is graded, and what an execution-level scenario shows instead of a model."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from evalhub.servers.models import McpServer
from scorers.models import Scorer
from tests.base import make_scenario


@pytest.mark.django_db
class ScenarioLevelTests:
    def test_the_list_shows_no_model_for_an_execution_level_scenario(
        self, alice_client: Client, server: McpServer
    ) -> None:
        make_scenario(server, level="execution", tool_call={"tool": "get_weather", "arguments": {}})

        listing = alice_client.get("/scenarios/").content.decode()

        assert 'title="An execution-level scenario calls its tool directly, with no model">none</span>' in listing
        assert "evalhub-offline</span>" not in listing

    def test_the_page_of_an_execution_level_scenario_names_no_model_and_no_turns(
        self, alice_client: Client, server: McpServer
    ) -> None:
        scenario = make_scenario(
            server, level="execution", tool_call={"tool": "get_weather", "arguments": {}}, max_turns=1
        )
        agent = make_scenario(server, name="Agent", max_turns=1, max_tool_calls=1)

        page = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()
        agents = alice_client.get(f"/scenarios/{agent.pk}/").content.decode()

        assert '<dd class="muted">none: the tool is called directly</dd>' in page
        assert "300&nbsp;s for the call" in page and "turn" not in page.split("Budgets")[1].split("</dd>")[0]
        # Each number keeps its unit on its line ("300" / "s" read oddly at 800 px).
        assert "1&nbsp;turn · 1&nbsp;tool&nbsp;call · 300&nbsp;s" in agents


def grading_card(html: str) -> str:
    return re.search(r'<section class="card" id="grading">.*?</section>', html, re.S)[0]  # type: ignore[index]


@pytest.mark.django_db
class ScenarioGradingTests:
    def test_the_page_lists_each_expectation_and_scorer_with_whether_it_gates(
        self, alice_client: Client, server: McpServer
    ) -> None:
        scenario = make_scenario(
            server,
            expected_tools=["get_weather"],
            pass_threshold=0.8,
            expectations=[
                {"kind": "tool_called", "tool": "get_weather", "args": {"latitude": {"between": [-90, 90]}}},
                {"kind": "tool_not_called", "tool": "book_flight", "description": "Never books <b>without</b> asking"},
                {"kind": "final_answer", "contains": "Paris", "required": False, "weight": 2},
            ],
        )
        strict = Scorer.objects.create(name="Coords valid", code="async () => 1")
        tone = Scorer.objects.create(name="Tone", code="async () => 1")
        strict.scenarios.add(scenario, through_defaults={"threshold": 0.9})
        tone.scenarios.add(scenario, through_defaults={"advisory": True})

        html = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()
        card = grading_card(html)

        rows = re.findall(r"<tr><td><code>([a-z_]+)</code></td>.*?</tr>", card, re.S)
        assert rows == ["tool_called", "tool_not_called", "final_answer"]
        assert "get_weather called with latitude.between = [-90, 90]" in card
        assert "Never books &lt;b&gt;without&lt;/b&gt; asking" in card
        assert card.count('data-gate="gating" title="Failing it fails the run">gating</span>') == 2
        assert 'data-gate="score-only"' in card and "weight 2" in card
        assert f'<a href="/scorers/{strict.pk}/">Coords valid</a>' in card
        assert '<span class="badge" data-gate="gating">gating at 0.9</span>' in card
        assert '<span class="badge" data-gate="advisory">advisory</span>' in card
        assert "reaches <strong>0.8</strong>" in card
        # Expected tools say what they are for, and nothing claims a default scorer runs.
        assert "checked only by the default scorer, which does not run beside expectations" in card
        assert 'id="grading-default"' not in card
        assert "none: any tool call passes" not in html and "default scorer (expected tools called?)" not in html

    def test_a_scenario_with_neither_says_what_the_default_scorer_checks(
        self, alice_client: Client, server: McpServer
    ) -> None:
        scenario = make_scenario(server, expected_tools=["get_weather"], tool_errors_expected=True)

        card = grading_card(alice_client.get(f"/scenarios/{scenario.pk}/").content.decode())

        assert (
            "<strong>Default scorer</strong> (no expectations or scorers are set): It passes when every expected tool "
            "is called (get_weather) and tool errors are expected, so they do not fail it."
        ) in card
        assert "Tool errors: <strong>expected</strong>" in card
