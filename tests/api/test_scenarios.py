"""/api/v1/scenarios: CRUD through the ScenarioForm's rules, duplicate, and starting one run."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings

from evalhub.providers.models import offline_provider
from evalhub.scenarios.models import Scenario
from runs.models import Run
from scorers.models import Scorer
from tests.api.helpers import assert_error
from tests.base import make_demo_server, make_scenario


def post(client: Client, path: str, data: Any = None) -> Any:
    return client.post(path, data, content_type="application/json")


def new_scenario(server_id: int, **overrides: Any) -> dict[str, Any]:
    return {
        "name": "Forecast",
        "prompt": "Weather at 48.85, 2.35?",
        "server_id": server_id,
        "model": "evalhub-offline",
        "expected_tools": ["get_weather"],
        "expected": {"city": "Paris"},
        "tags": ["smoke", "Weather"],
        **overrides,
    }


@pytest.mark.django_db
class ScenarioListTests:
    def test_it_lists_and_filters(self, reader_api: Client) -> None:
        server = make_demo_server()
        smoke = make_scenario(server, name="A")
        smoke.tags.create(name="smoke")
        make_scenario(server, name="B")

        assert reader_api.get("/api/v1/scenarios").json()["total"] == 2
        tagged = reader_api.get("/api/v1/scenarios?tag=smoke").json()
        assert [s["name"] for s in tagged["items"]] == ["A"]
        assert tagged["items"][0]["tags"] == ["smoke"]
        assert reader_api.get("/api/v1/scenarios?name=B").json()["items"][0]["name"] == "B"
        assert reader_api.get(f"/api/v1/scenarios?server_id={server.pk}&limit=1").json()["total"] == 2


@pytest.mark.django_db
class ScenarioCreateTests:
    def test_it_creates_one_with_tags_and_expected_json(self, writer_api: Client) -> None:
        server = make_demo_server()

        response = post(writer_api, "/api/v1/scenarios", new_scenario(server.pk))

        assert response.status_code == 201, response.content
        body = response.json()
        assert (body["tags"], body["expected"], body["provider_id"]) == (
            ["smoke", "weather"],
            {"city": "Paris"},
            offline_provider().pk,
        )
        assert Scenario.objects.get(pk=body["id"]).created_by.username == "bob"  # type: ignore[union-attr]

    def test_it_applies_the_forms_rules(self, writer_api: Client) -> None:
        server = make_demo_server()
        data = new_scenario(server.pk, tags=["no spaces"], expected_tools=["bad name!"], model="gpt-nope")

        error = assert_error(post(writer_api, "/api/v1/scenarios", data), 400, "VALIDATION_ERROR")

        assert {"tags", "expected_tools", "model"} <= set(error["details"]["fields"])

    def test_an_unknown_server_is_a_validation_error(self, writer_api: Client) -> None:
        error = assert_error(post(writer_api, "/api/v1/scenarios", new_scenario(99999)), 400, "VALIDATION_ERROR")

        assert "server_id" in error["details"]["fields"]

    @pytest.mark.parametrize(
        ("overrides", "field", "word"),
        [
            ({"expected": math.nan}, "expected", "NaN"),
            ({"expected": {"temps": [1, math.inf]}}, "expected.temps[1]", "Infinity"),
            ({"pass_threshold": -math.inf}, "pass_threshold", "-Infinity"),
        ],
    )
    def test_nan_and_infinity_are_refused_with_where_they_are(
        self, writer_api: Client, overrides: dict[str, Any], field: str, word: str
    ) -> None:
        # json.dumps writes NaN and Infinity, as Python clients send them.
        body = json.dumps(new_scenario(make_demo_server().pk, **overrides))

        error = assert_error(post(writer_api, "/api/v1/scenarios", body), 400, "VALIDATION_ERROR")

        assert error["message"] == (
            f'{field}: {word} is not a JSON number; send a finite number, null, or the text "{word}" as a string.'
        )
        assert error["details"] == {"field": field}
        assert not Scenario.objects.exists()

    def test_a_boolean_is_not_an_id(self, writer_api: Client) -> None:
        # pydantic would read true as 1 and pick whichever server has id 1.
        make_demo_server(pk=1)

        error = assert_error(post(writer_api, "/api/v1/scenarios", new_scenario(True)), 400, "VALIDATION_ERROR")

        assert error["message"] == "body.payload.server_id: Value error, an id is a number, not true"
        assert not Scenario.objects.exists()

    def test_a_missing_field_is_a_validation_error(self, writer_api: Client) -> None:
        error = assert_error(post(writer_api, "/api/v1/scenarios", {"name": "x"}), 400, "VALIDATION_ERROR")

        assert ["body", "payload", "prompt"] in [e["loc"] for e in error["details"]["errors"]]

    def test_it_requires_the_write_scope(self, reader_api: Client) -> None:
        assert_error(post(reader_api, "/api/v1/scenarios", new_scenario(1)), 403, "INSUFFICIENT_PERMISSIONS")


@pytest.mark.django_db
class ScenarioDetailTests:
    def test_it_gets_one_with_warnings_about_unknown_tools(self, reader_api: Client) -> None:
        server = make_demo_server()
        server.record_tools([{"name": "get_weather", "inputSchema": {"type": "object"}}])
        scenario = make_scenario(server, expected_tools=["get_weather", "fly"])

        body = reader_api.get(f"/api/v1/scenarios/{scenario.pk}").json()

        assert body["expected_tools"] == ["get_weather", "fly"]
        assert body["warnings"] == [f"{server.name} does not offer fly."]

    def test_a_missing_one_is_404(self, reader_api: Client) -> None:
        assert_error(reader_api.get("/api/v1/scenarios/9999"), 404, "RESOURCE_NOT_FOUND")

    def test_it_updates_only_what_is_sent(self, writer_api: Client, bob: User) -> None:
        scenario = make_scenario(make_demo_server(), pass_threshold=0.5, created_by=bob)
        scenario.tags.create(name="smoke")

        response = writer_api.patch(
            f"/api/v1/scenarios/{scenario.pk}",
            {"prompt": "New prompt", "expected": None},
            content_type="application/json",
        )

        assert response.status_code == 200, response.content
        scenario.refresh_from_db()
        assert (scenario.prompt, scenario.expected, scenario.pass_threshold) == ("New prompt", None, 0.5)
        assert [t.name for t in scenario.tags.all()] == ["smoke"]

    def test_an_invalid_update_changes_nothing(self, writer_api: Client, bob: User) -> None:
        scenario = make_scenario(make_demo_server(), created_by=bob)

        response = writer_api.patch(
            f"/api/v1/scenarios/{scenario.pk}", {"pass_threshold": 3}, content_type="application/json"
        )

        assert "pass_threshold" in assert_error(response, 400, "VALIDATION_ERROR")["details"]["fields"]
        scenario.refresh_from_db()
        assert scenario.pass_threshold == 0.7

    def test_it_deletes_one_and_its_runs(self, writer_api: Client, bob: User) -> None:
        scenario = make_scenario(make_demo_server(), created_by=bob)
        Run.objects.create(scenario=scenario, model="m")

        assert writer_api.delete(f"/api/v1/scenarios/{scenario.pk}").status_code == 204
        assert not Run.objects.exists()

    def test_it_duplicates_one(self, writer_api: Client) -> None:
        scenario = make_scenario(make_demo_server())

        scorer = Scorer.objects.create(name="Weather called", code="async () => 1")
        scenario.scorers.set([scorer])

        response = post(writer_api, f"/api/v1/scenarios/{scenario.pk}/duplicate")

        assert response.status_code == 201
        assert (response.json()["name"], response.json()["scorer_ids"]) == (f"Copy of {scenario.name}", [scorer.pk])


@pytest.mark.django_db
class ScenarioRunTests:
    def test_it_queues_a_run(self, writer_api: Client) -> None:
        scenario = make_scenario(make_demo_server())

        response = post(writer_api, f"/api/v1/scenarios/{scenario.pk}/runs")

        assert response.status_code == 201, response.content
        body = response.json()
        run = Run.objects.get(pk=body["id"])
        assert (body["status"], run.model, run.started_by.username) == ("queued", "evalhub-offline", "bob")  # type: ignore[union-attr]

    def test_a_body_that_is_not_an_object_is_refused(self, writer_api: Client) -> None:
        # Schemathesis at 100 examples found `false` accepted as "no body" (and a run started).
        scenario = make_scenario(make_demo_server())

        response = writer_api.post(f"/api/v1/scenarios/{scenario.pk}/runs", "false", content_type="application/json")

        error = assert_error(response, 400, "VALIDATION_ERROR")
        assert error["message"] == 'The body must be a JSON object such as {"model": "gpt-4o"}, or empty.'
        assert not Run.objects.exists()

    def test_it_overrides_the_model_with_one_the_provider_serves(self, writer_api: Client) -> None:
        scenario = make_scenario(make_demo_server())

        error = assert_error(
            post(writer_api, f"/api/v1/scenarios/{scenario.pk}/runs", {"model": "gpt-9"}), 400, "VALIDATION_ERROR"
        )

        assert error["details"]["models"] == ["evalhub-offline"]
        assert (
            post(writer_api, f"/api/v1/scenarios/{scenario.pk}/runs", {"model": "evalhub-offline"}).status_code == 201
        )

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=1)
    def test_it_answers_429_when_the_quota_is_used_up(self, writer_api: Client) -> None:
        scenario = make_scenario(make_demo_server())
        post(writer_api, f"/api/v1/scenarios/{scenario.pk}/runs")

        error = assert_error(post(writer_api, f"/api/v1/scenarios/{scenario.pk}/runs"), 429, "QUOTA_EXCEEDED")

        assert (error["details"]["used"], error["details"]["limit"]) == (1, 1)
        assert "resets at 00:00 UTC" in error["message"]

    def test_it_requires_the_write_scope(self, reader_api: Client) -> None:
        scenario = make_scenario(make_demo_server())

        assert_error(post(reader_api, f"/api/v1/scenarios/{scenario.pk}/runs"), 403, "INSUFFICIENT_PERMISSIONS")
