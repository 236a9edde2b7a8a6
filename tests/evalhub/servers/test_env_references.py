"""`${VAR}` references: only staff may type them, only for variables an operator allowed and never for EvalHub's own
settings; references stored before those rules are not resolved by the web app or the worker either. The endpoint
the secrets would go to is a real one on 127.0.0.1 that records what it receives."""

from __future__ import annotations

import html
import subprocess
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client, override_settings

from evalhub.servers.models import McpServer
from runs.models import Run
from runs.services import run_start
from tests.api.conftest import key_client
from tests.base import make_scenario, wait_until
from tests.evalhub.model_client.scripted_server import ScriptedServer

PROTECTED = "names one of EvalHub's own settings, which are never sent to a server or provider."
NOT_ALLOWED = (
    "${SOME_VAR} is not an allowed environment variable: an operator must add SOME_VAR to "
    "EVALHUB_SECRET_ENV_ALLOWLIST (on the web app and the worker) before a secret may reference it."
)
STAFF_ONLY = "only staff may use ${…} references, which read this machine's environment; type the secret itself."


@pytest.fixture
def host_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """The host's environment as the audit found it: the real SECRET_KEY, a database URL with its password, more."""
    monkeypatch.setenv("SECRET_KEY", settings.SECRET_KEY)
    monkeypatch.setenv("DATABASE_URL", "postgres://evalhub:db-password-9c1e@db:5432/evalhub")
    monkeypatch.setenv("SOME_VAR", "some-var-value-77d2")
    monkeypatch.setenv("MCP_TEAM_TOKEN", "team-token-5b0a")


def stored_server(scripted: ScriptedServer, owner: User, **secrets: Any) -> McpServer:
    """A server saved with references before the rules existed, pointing at the recording endpoint."""
    url = scripted.base_url.replace("/v1", "/mcp")
    server = McpServer(name="Exfil", transport="http", url=url, created_by=owner, connect_timeout=5)
    server.set_secrets(**{"bearer_token": "", "env": {}, "headers": {}, **secrets})
    server.save()
    return server


def http_form(**overrides: str) -> dict[str, str]:
    data = {"name": "Mine", "transport": "http", "url": "https://mcp.example.com/mcp", "connect_timeout": "30"}
    return data | {"request_timeout": "60", "protocol_mode": "auto"} | overrides


@pytest.mark.django_db
class StoredReferenceTests:
    @pytest.mark.parametrize(
        ("secrets", "refusal"),
        [
            ({"bearer_token": "${SECRET_KEY}"}, f"${{SECRET_KEY}} {PROTECTED}"),
            ({"headers": {"X-Db": "${DATABASE_URL}"}}, f"${{DATABASE_URL}} {PROTECTED}"),
            ({"headers": {"X-Key": "${EVALHUB_SECRETS_KEY}"}}, f"${{EVALHUB_SECRETS_KEY}} {PROTECTED}"),
            ({"headers": {"X-Other": "${SOME_VAR}"}}, NOT_ALLOWED),
        ],
    )
    def test_inspect_sends_nothing_and_says_why(
        self,
        host_env: None,
        alice: User,
        bob_client: Client,
        scripted: ScriptedServer,
        secrets: dict[str, Any],
        refusal: str,
    ) -> None:
        server = stored_server(scripted, alice, **secrets)

        page = html.unescape(bob_client.post(f"/servers/{server.pk}/inspect/", follow=True).content.decode())

        assert f"Inspecting “Exfil” failed: {refusal}" in page
        assert scripted.received == []
        server.refresh_from_db()
        assert server.last_error is not None and server.last_error["message"] == refusal

    @override_settings(EVALHUB_SECRET_ENV_ALLOWLIST=["MCP_*"])
    def test_an_allowed_variable_is_sent(
        self, host_env: None, alice: User, alice_client: Client, scripted: ScriptedServer
    ) -> None:
        server = stored_server(scripted, alice, bearer_token="${MCP_TEAM_TOKEN}")

        alice_client.post(f"/servers/{server.pk}/inspect/")

        assert scripted.received[0].headers["authorization"] == "Bearer team-token-5b0a"

    @pytest.mark.worker
    def test_the_worker_does_not_resolve_them_either(
        self, host_env: None, worker: subprocess.Popen[bytes], alice: User, scripted: ScriptedServer
    ) -> None:
        server = stored_server(scripted, alice, bearer_token="${SECRET_KEY}")
        run = run_start(scenario=make_scenario(server), user=alice)

        wait_until(lambda: Run.objects.get(pk=run.pk).status == "error", timeout=60, what="the run to fail")

        run.refresh_from_db()
        assert run.error == {"step": "connect", "kind": "secret_unavailable", "message": f"${{SECRET_KEY}} {PROTECTED}"}
        assert scripted.received == []


@pytest.mark.django_db
class TypedReferenceTests:
    def test_non_staff_may_not_type_one(self, bob_client: Client) -> None:
        response = bob_client.post("/servers/new/", http_form(bearer_token="${SOME_VAR}"))

        assert response.context["form"].errors["bearer_token"] == [f"Bearer token: {STAFF_ONLY}"]
        assert not McpServer.objects.exists()

    def test_non_staff_may_not_type_one_through_the_api(self, bob: User) -> None:
        client = key_client(bob, ["evaluate:read", "evaluate:write"])
        data = {"name": "Mine", "transport": "http", "url": "https://mcp.example.com/mcp"}

        response = client.post(
            "/api/v1/servers", {**data, "secret_headers": {"X-Db": "${DATABASE_URL}"}}, content_type="application/json"
        )

        assert response.status_code == 400
        assert response.json()["error"]["details"]["fields"]["secret_headers"] == [f"X-Db: {STAFF_ONLY}"]
        assert not McpServer.objects.exists()

    def test_staff_may_not_reference_a_setting_or_an_unlisted_variable(self, alice_client: Client) -> None:
        response = alice_client.post(
            "/servers/new/",
            http_form(bearer_token="${SECRET_KEY}", secret_headers_text="X-Other: ${SOME_VAR}"),
        )

        errors = response.context["form"].errors
        assert errors["bearer_token"] == [f"Bearer token: ${{SECRET_KEY}} {PROTECTED}"]
        assert errors["secret_headers_text"] == [f"X-Other: {NOT_ALLOWED}"]
        assert not McpServer.objects.exists()

    @override_settings(EVALHUB_SECRET_ENV_ALLOWLIST=["SOME_VAR", "SECRET_KEY"])
    def test_staff_may_reference_an_allowed_variable_but_never_a_setting(self, alice_client: Client) -> None:
        refused = alice_client.post("/servers/new/", http_form(bearer_token="${SECRET_KEY}"))
        alice_client.post("/servers/new/", http_form(secret_headers_text="X-Other: ${SOME_VAR}"))

        assert refused.context["form"].errors["bearer_token"] == [f"Bearer token: ${{SECRET_KEY}} {PROTECTED}"]
        assert McpServer.objects.get().secrets()["headers"] == {"X-Other": "${SOME_VAR}"}
