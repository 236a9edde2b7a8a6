"""/api/v1/scenarios: a fault injection in, out, patched away and validated with its place; a run copies it."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from runs.models import Run
from tests.api.helpers import assert_error
from tests.api.test_scenarios import new_scenario, post
from tests.base import make_demo_server

SLOW = {
    "faults": [{"name": "slow search", "tool": "search_flights", "kind": "slow", "delay_ms": 3000}],
    "recovery": {"max_detection_ms": 8000},
}


def create(client: Client, fault_injection: Any) -> Any:
    server = McpServer.objects.filter(name="Demo travel server").first() or make_demo_server()
    return post(client, "/api/v1/scenarios", new_scenario(server.pk, fault_injection=fault_injection))


@pytest.mark.django_db
class ScenarioFaultInjectionApiTests:
    def test_it_is_stored_returned_copied_into_a_run_and_patched_away(self, writer_api: Client) -> None:
        body = create(writer_api, SLOW).json()
        assert body["fault_injection"] == SLOW
        assert Scenario.objects.get(pk=body["id"]).fault_injection == SLOW

        run = writer_api.post(f"/api/v1/scenarios/{body['id']}/runs", content_type="application/json").json()
        assert Run.objects.get(pk=run["id"]).settings["fault_injection"] == SLOW

        patched = writer_api.patch(
            f"/api/v1/scenarios/{body['id']}", {"fault_injection": None}, content_type="application/json"
        ).json()
        assert patched["fault_injection"] == {}

    def test_the_default_is_none(self, writer_api: Client) -> None:
        assert create(writer_api, {}).json()["fault_injection"] == {}

    def test_errors_name_the_place_and_what_to_do(self, writer_api: Client) -> None:
        bad = {"faults": [{"kind": "slow", "tool": "search_flights"}], "recovery": {"max_recovery_ms": -1}}
        error = assert_error(create(writer_api, bad), 400, "VALIDATION_ERROR")
        assert error["details"]["fields"]["fault_injection"] == [
            "fault_injection.faults[0].delay_ms: a slow fault needs the delay in milliseconds (1 to 600000)",
            "fault_injection.recovery.max_recovery_ms: must be a whole number from 1 to 3600000, got -1",
        ]
