"""The scenario form's expectations: saved, refused with the engine's messages (input kept), the editor's spec on
the page and its live check endpoint."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from scorers.expectations import KIND_DESCRIPTIONS, MATCHERS
from tests.base import make_scenario
from tests.evalhub.scenarios.test_scenarios import form_data

CHECKS = [
    {"kind": "tool_called", "tool": "get_weather", "args": {"latitude": {"$range": [-90, 90]}}},
    {"kind": "final_answer", "icontains": "Paris"},
]


def check(client: Client, data: Any) -> Any:
    return client.post("/scenarios/expectations/check/", json.dumps(data), content_type="application/json")


@pytest.mark.django_db
class ScenarioFormExpectationsTests:
    def test_it_saves_expectations_and_budgets(self, alice_client: Client, server: McpServer) -> None:
        data = form_data(server, expectations=json.dumps(CHECKS), max_tokens=1024, token_budget=30000)

        alice_client.post("/scenarios/new/", {**data, "cost_budget_usd": "0.5"})

        scenario = Scenario.objects.get()
        assert scenario.expectations == CHECKS
        assert (scenario.max_tokens, scenario.token_budget, str(scenario.cost_budget_usd)) == (1024, 30000, "0.5000")

    def test_empty_means_none_and_the_default_max_tokens(self, alice_client: Client, server: McpServer) -> None:
        alice_client.post("/scenarios/new/", form_data(server, expectations="  ", max_tokens=""))

        scenario = Scenario.objects.get()
        assert (scenario.expectations, scenario.max_tokens, scenario.token_budget) == ([], 4096, None)

    def test_each_error_names_its_index_and_field_and_the_input_is_kept(
        self,
        alice_client: Client,
        server: McpServer,
    ) -> None:
        typed = json.dumps([CHECKS[0], {"kind": "tool_called", "tool": "x", "args": {"lat": {"$rnage": [1, 2]}}}])

        response = alice_client.post("/scenarios/new/", form_data(server, expectations=typed))

        html = response.content.decode()
        assert response.status_code == 200 and not Scenario.objects.exists()
        assert "expectations[1].args.lat: unknown matcher &quot;$rnage&quot;; did you mean &quot;$range&quot;?" in html
        assert "&quot;$rnage&quot;: [" in html  # what was typed is still in the JSON field

    def test_invalid_json_points_at_the_line(self, alice_client: Client, server: McpServer) -> None:
        response = alice_client.post("/scenarios/new/", form_data(server, expectations='[{"kind": }]'))

        assert "Invalid JSON at line 1, column 11: Expecting value." in response.content.decode()

    def test_the_form_carries_the_editor_and_its_descriptions(self, alice_client: Client) -> None:
        scenario = make_scenario(McpServer.objects.create(name="S", url="http://x/mcp"), expectations=CHECKS)

        html = alice_client.get(f"/scenarios/{scenario.pk}/edit/").content.decode()

        assert 'id="expectations-editor"' in html and "js/expectations.js" in html
        spec = json.loads(
            html.split('<script id="expectations-spec" type="application/json">')[1].split("</script>")[0]
        )
        assert [kind["name"] for kind in spec["kinds"]] == list(KIND_DESCRIPTIONS)
        assert spec["matchers"] == MATCHERS
        called = spec["kinds"][0]
        assert {field["name"]: field["widget"] for field in called["fields"]} == {
            "tool": "text",
            "args": "args",
            "match": "select",
            "transform": "text",
            "call": "call",
            "times": "integer",
            "at_least": "integer",
            "at_most": "integer",
        }
        assert "get_weather" in html  # the saved list, in the JSON field the editor reads

    def test_expected_tools_no_longer_promise_an_order(self, alice_client: Client) -> None:
        html = alice_client.get("/scenarios/new/").content.decode()

        assert "in the order" not in html
        assert "The default scorer checks that each was called, in any order" in html


@pytest.mark.django_db
class ExpectationsCheckTests:
    def test_it_describes_valid_rows_and_lists_each_rows_errors(self, alice_client: Client) -> None:
        rows = [CHECKS[0], {"kind": "tool_called"}, {"kind": "final_answer", "icontains": "Paris", "weight": 0}]

        body = check(alice_client, {"expectations": rows}).json()

        assert body == {
            "rows": [
                {"label": "get_weather called with latitude in [-90, 90]", "errors": []},
                {"label": "", "errors": ["tool: required for tool_called"]},
                {"label": "", "errors": ["weight: expected a number > 0, got 0"]},
            ],
            "errors": [],
        }

    def test_a_non_list_is_one_error_about_the_whole_list(self, alice_client: Client) -> None:
        assert check(alice_client, {"expectations": {"kind": "x"}}).json() == {
            "rows": [],
            "errors": ['expectations: expected a list, got {"kind": "x"}'],
        }

    def test_a_body_that_is_not_json_is_refused(self, alice_client: Client) -> None:
        response = alice_client.post("/scenarios/expectations/check/", "nope", content_type="application/json")

        assert (response.status_code, response.json()["errors"]) == (400, ["The request body is not JSON."])

    def test_it_requires_login_and_post(self, client: Client, alice_client: Client) -> None:
        assert check(client, {"expectations": []})["Location"].startswith("/login/")
        assert alice_client.get("/scenarios/expectations/check/").status_code == 405
