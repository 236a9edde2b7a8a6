"""The suites API: the public JSON Schema, export, apply with dry_run (staff + evaluate:admin), mcptest import."""

from __future__ import annotations

from pathlib import Path

from django.contrib.auth.models import User
from django.test import Client

from evalhub.scenarios.models import Scenario
from tests.api.conftest import KeyClient
from tests.api.helpers import assert_error
from tests.evalhub.suites.install import SECRET_VALUES, build_install

MCPTEST = Path(__file__).resolve().parent.parent / "evalhub" / "suites" / "mcptest_suite.yaml"


class SchemaTests:
    def test_the_schema_is_served_without_authentication(self, db: None) -> None:
        response = Client().get("/api/v1/schemas/suite.json")
        assert response.status_code == 200
        schema = response.json()
        assert schema["$id"] == "http://testserver/api/v1/schemas/suite.json"
        assert set(schema["properties"]) == {"version", "servers", "providers", "scorers", "scenarios"}


class ExportTests:
    def test_it_exports_yaml_without_secrets(self, alice: User, reader_api: Client) -> None:
        build_install(alice)
        response = reader_api.get("/api/v1/suites/export?tag=weather")
        assert response.status_code == 200
        assert response["Content-Type"] == "application/yaml; charset=utf-8"
        text = response.content.decode()
        assert text.startswith("# yaml-language-server: $schema=http://testserver/api/v1/schemas/suite.json")
        assert "name: Weather in Paris" in text and "Remote echo" not in text
        assert not [value for value in SECRET_VALUES if value in text]

    def test_it_requires_authentication(self, db: None) -> None:
        assert_error(Client().get("/api/v1/suites/export"), 401, "AUTHENTICATION_REQUIRED")


class ApplyTests:
    def test_dry_run_then_apply(self, alice: User, admin_api: Client) -> None:
        build_install(alice)
        text = admin_api.get("/api/v1/suites/export").content.decode().replace("Echo hello.", "Echo hi.")
        body = {"yaml": text, "filename": "evals.yaml", "dry_run": True}
        response = admin_api.post("/api/v1/suites/apply", body, content_type="application/json")
        assert response.status_code == 200, response.content
        assert response.json() == {
            "applied": False,
            "plan": {
                "summary": "Plan: 0 to create, 1 to change, 0 to delete.",
                "create": 0,
                "change": 1,
                "delete": 0,
                "steps": [
                    {
                        "action": "change",
                        "section": "scenarios",
                        "name": "Remote echo",
                        "changes": [{"field": "prompt", "before": "Echo hello.", "after": "Echo hi."}],
                    }
                ],
            },
        }
        assert Scenario.objects.get(name="Remote echo").prompt == "Echo hello."
        response = admin_api.post("/api/v1/suites/apply", {**body, "dry_run": False}, content_type="application/json")
        assert response.json()["applied"] is True
        assert Scenario.objects.get(name="Remote echo").prompt == "Echo hi."

    def test_problems_come_with_lines_and_pointers(self, admin_api: Client) -> None:
        text = "scenarios:\n- name: x\n  server: s\n  provider: p\n  model: m\n  prompt: p\n  max_turn: 3\n"
        response = admin_api.post(
            "/api/v1/suites/apply", {"yaml": text, "filename": "evals.yaml"}, content_type="application/json"
        )
        error = assert_error(response, 400, "VALIDATION_ERROR")
        assert (
            error["message"] == 'evals.yaml:7 /scenarios/0/max_turn: unknown key "max_turn"; did you mean "max_turns"?'
        )
        assert error["details"]["problems"] == [
            {
                "file": "evals.yaml",
                "line": 7,
                "pointer": "/scenarios/0/max_turn",
                "message": 'unknown key "max_turn"; did you mean "max_turns"?',
            }
        ]

    def test_applying_needs_staff_and_the_admin_scope(self, bob: User, alice: User, make_client: KeyClient) -> None:
        body = {"yaml": "version: 1\n", "dry_run": True}
        for client in (make_client(bob, "evaluate:read", "evaluate:write"), make_client(alice, "evaluate:write")):
            response = client.post("/api/v1/suites/apply", body, content_type="application/json")
            assert response.status_code in (401, 403)
            assert response.json()["error"]["code"] in ("INSUFFICIENT_PERMISSIONS", "AUTHENTICATION_REQUIRED")


class McptestImportTests:
    def test_it_plans_and_reports(self, alice: User, admin_api: Client, settings: object) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["*"]  # type: ignore[attr-defined]
        body = {"yaml": MCPTEST.read_text(), "filename": "suite.yaml", "dry_run": True}
        response = admin_api.post("/api/v1/suites/import-mcptest", body, content_type="application/json")
        assert response.status_code == 200, response.content
        data = response.json()
        assert data["plan"]["create"] == 9 and data["applied"] is False
        assert data["counts"] == {"exact": 21, "approximated": 5, "refused": 8}
        assert {
            "pointer": "/compliance/0",
            "status": "unsupported",
            "reason": "protocol compliance checks are not part of EvalHub",
        } in data["report"]
        assert not Scenario.objects.exists()
