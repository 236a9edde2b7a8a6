"""/api/v1/scenarios: tool_mode is created, read, patched and validated."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.api.helpers import assert_error
from tests.base import make_demo_server


def body(server_id: int, **overrides: Any) -> dict[str, Any]:
    return {
        "name": "Code weather",
        "prompt": "Weather at 48.85, 2.35?",
        "server_id": server_id,
        "model": "evalhub-offline",
        **overrides,
    }


@pytest.mark.django_db
class ScenarioToolModeApiTests:
    def test_code_mode_is_created_read_and_patched_back(self, writer_api: Client) -> None:
        server = make_demo_server()
        created = writer_api.post(
            "/api/v1/scenarios", body(server.pk, tool_mode="code"), content_type="application/json"
        )
        assert created.status_code == 201, created.content
        assert created.json()["tool_mode"] == "code"

        scenario_id = created.json()["id"]
        patched = writer_api.patch(
            f"/api/v1/scenarios/{scenario_id}", {"tool_mode": "direct"}, content_type="application/json"
        )
        assert patched.json()["tool_mode"] == "direct"
        assert writer_api.get(f"/api/v1/scenarios/{scenario_id}").json()["tool_mode"] == "direct"

    def test_the_default_is_direct_and_an_unknown_mode_is_refused(self, writer_api: Client) -> None:
        server = make_demo_server()
        created = writer_api.post("/api/v1/scenarios", body(server.pk), content_type="application/json")
        assert created.json()["tool_mode"] == "direct"

        refused = writer_api.post(
            "/api/v1/scenarios", body(server.pk, name="X", tool_mode="js"), content_type="application/json"
        )
        error = assert_error(refused, 400, "VALIDATION_ERROR")
        assert "tool_mode" in str(error)
