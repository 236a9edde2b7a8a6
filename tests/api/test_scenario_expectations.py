"""/api/v1/scenarios: expectations and budgets in, out and patched, validated with the engine's messages, and the
Expectations JSON Schema in the OpenAPI document."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from jsonschema import Draft202012Validator

from evalhub.scenarios.models import Scenario
from scorers.expectations import EXPECTATIONS_JSON_SCHEMA, KIND_DESCRIPTIONS
from tests.api.helpers import assert_error
from tests.api.test_scenarios import new_scenario, post
from tests.base import make_demo_server, make_scenario

CHECKS = [
    {"kind": "tool_called", "tool": "get_weather", "args": {"latitude": {"$range": [-90, 90]}}},
    {"kind": "tool_not_called", "tool": "book_flight", "required": True},
]


def patch(client: Client, scenario: Scenario, data: Any) -> Any:
    return client.patch(f"/api/v1/scenarios/{scenario.pk}", data, content_type="application/json")


@pytest.mark.django_db
class ScenarioExpectationsApiTests:
    def test_it_creates_one_with_expectations_and_budgets(self, writer_api: Client) -> None:
        data = new_scenario(
            make_demo_server().pk, expectations=CHECKS, max_tokens=512, token_budget=20000, cost_budget_usd=0.25
        )

        body = post(writer_api, "/api/v1/scenarios", data).json()

        assert body["expectations"] == CHECKS
        assert (body["max_tokens"], body["token_budget"], body["cost_budget_usd"]) == (512, 20000, 0.25)
        assert Scenario.objects.get(pk=body["id"]).expectations == CHECKS

    def test_defaults_are_no_expectations_no_budgets_and_4096_tokens_per_call(self, writer_api: Client) -> None:
        body = post(writer_api, "/api/v1/scenarios", new_scenario(make_demo_server().pk)).json()

        assert (body["expectations"], body["max_tokens"], body["token_budget"], body["cost_budget_usd"]) == (
            [],
            4096,
            None,
            None,
        )

    def test_errors_point_at_the_index_and_field(self, writer_api: Client) -> None:
        typo = [CHECKS[0], {"kind": "tool_called", "tool": "x"}, {**CHECKS[0], "args": {"latitude": {"$rnage": [1]}}}]

        error = assert_error(
            post(writer_api, "/api/v1/scenarios", new_scenario(make_demo_server().pk, expectations=typo)),
            400,
            "VALIDATION_ERROR",
        )

        assert error["message"] == 'expectations[2].args.latitude: unknown matcher "$rnage"; did you mean "$range"?'
        assert error["details"]["fields"]["expectations"] == [error["message"]]
        assert not Scenario.objects.exists()

    def test_every_error_of_the_list_is_listed(self, writer_api: Client) -> None:
        bad = [{"kind": "tool_caled"}, {"kind": "final_answer"}, "nope"]

        error = assert_error(
            post(writer_api, "/api/v1/scenarios", new_scenario(make_demo_server().pk, expectations=bad)),
            400,
            "VALIDATION_ERROR",
        )

        assert error["details"]["fields"]["expectations"] == [
            'expectations[0].kind: unknown kind "tool_caled"; did you mean "tool_called"?',
            "expectations[1]: final_answer needs exactly one of contains, icontains, not_contains, regex, equals, "
            "starts_with, is_json, json_schema, matches",
            'expectations[2]: expected an object, got "nope"',
        ]

    def test_patch_replaces_them_and_null_is_refused(self, writer_api: Client, bob: User) -> None:
        scenario = make_scenario(make_demo_server(), expectations=CHECKS, created_by=bob)

        assert patch(writer_api, scenario, {"expectations": CHECKS[1:]}).json()["expectations"] == CHECKS[1:]
        error = assert_error(patch(writer_api, scenario, {"expectations": None}), 400, "VALIDATION_ERROR")
        assert error["message"] == "expectations: expected a list, got null"
        assert patch(writer_api, scenario, {"token_budget": 5000}).json()["expectations"] == CHECKS[1:]
        scenario.refresh_from_db()
        assert (scenario.expectations, scenario.token_budget) == (CHECKS[1:], 5000)

    def test_the_openapi_document_carries_the_expectations_schema(self, reader_api: Client) -> None:
        document = reader_api.get("/api/v1/openapi.json").json()
        schemas = document["components"]["schemas"]

        for name in ("ScenarioIn", "ScenarioOut", "ScenarioPatch"):
            field = schemas[name]["properties"]["expectations"]
            assert field["allOf"] == [{"$ref": "#/components/schemas/Expectations"}]
        kinds = [branch["title"] for branch in schemas["Expectations"]["items"]["oneOf"]]
        assert kinds == list(KIND_DESCRIPTIONS)
        # The components, put back together, are the engine's schema and accept what it accepts.
        rebuilt = {**schemas["Expectations"], "components": {"schemas": schemas}}
        validator = Draft202012Validator(rebuilt)
        assert validator.is_valid(CHECKS)
        assert not validator.is_valid([{"kind": "tool_called", "tool": "x", "args": {"a": {"$rnage": [1, 2]}}}])
        assert set(EXPECTATIONS_JSON_SCHEMA["$defs"]) == {"value", "matcher", "dollarKeyObject"}
