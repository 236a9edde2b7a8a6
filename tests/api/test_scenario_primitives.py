"""Resource and prompt scenarios through the API: level, primitive, errors naming the field."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from tests.api.helpers import assert_error
from tests.base import make_demo_server, make_scenario


@pytest.mark.django_db
class PrimitiveApiTests:
    def test_it_creates_reads_and_patches_a_resource_scenario(self, writer_api: Client) -> None:
        server = make_demo_server()
        data = {
            "name": "Airports",
            "prompt": "Read the airports",
            "server_id": server.pk,
            "model": "evalhub-offline",
            "level": "resource",
            "primitive": {"uri": "travel://airports"},
        }

        created = writer_api.post("/api/v1/scenarios", json.dumps(data), content_type="application/json")

        assert created.status_code == 201, created.content
        body = created.json()
        assert (body["level"], body["primitive"]) == ("resource", {"uri": "travel://airports"})
        patched = writer_api.patch(
            f"/api/v1/scenarios/{body['id']}",
            json.dumps({"name": "Airports again"}),
            content_type="application/json",
        ).json()
        assert (patched["level"], patched["primitive"]) == ("resource", {"uri": "travel://airports"})

    def test_bad_primitive_is_a_validation_error_naming_it(self, writer_api: Client) -> None:
        server = make_demo_server()
        data = {
            "name": "P",
            "prompt": "p",
            "server_id": server.pk,
            "model": "evalhub-offline",
            "level": "prompt",
            "primitive": {"name": "plan_trip", "arguments": {"destination": 3}},
        }

        response = writer_api.post("/api/v1/scenarios", json.dumps(data), content_type="application/json")

        error = assert_error(response, 400, "VALIDATION_ERROR")
        assert "primitive" in error["details"]["fields"]

    def test_an_execution_scenario_keeps_its_level_when_patched(self, writer_api: Client, bob: Any) -> None:
        scenario = make_scenario(
            make_demo_server(), level="execution", tool_call={"tool": "get_weather", "arguments": {}}, created_by=bob
        )

        body = writer_api.patch(
            f"/api/v1/scenarios/{scenario.pk}", json.dumps({"name": "renamed"}), content_type="application/json"
        ).json()

        assert body["level"] == "execution", body
