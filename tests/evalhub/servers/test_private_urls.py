"""Server-side request forgery: link-local and metadata addresses are refused for everyone; loopback and private
networks for servers staff added (or everyone's with EVALHUB_ALLOW_PRIVATE_URLS), when saved and when connected."""

from __future__ import annotations

import html
import subprocess

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings

from evalhub.providers.models import Provider
from evalhub.servers.models import McpServer
from runs.models import Run
from runs.services import run_start
from tests.api.conftest import key_client
from tests.base import make_scenario, wait_until
from tests.evalhub.model_client.scripted_server import ScriptedServer

METADATA = (
    "169.254.169.254 is a link-local address, where cloud metadata services answer; EvalHub never connects to "
    "link-local, cloud metadata, multicast or reserved addresses."
)
STAFF_ONLY = (
    "only servers added by staff may reach loopback and private-network addresses (an operator can allow "
    "everyone's with EVALHUB_ALLOW_PRIVATE_URLS=1)."
)


def http_form(url: str) -> dict[str, str]:
    return {"name": "Mine", "transport": "http", "url": url, "connect_timeout": "5", "request_timeout": "60"} | {
        "protocol_mode": "auto"
    }


def url_errors(client: Client, url: str) -> list[str]:
    response = client.post("/servers/new/", http_form(url))
    return list(response.context["form"].errors["url"]) if response.status_code == 200 else []


def local_server(scripted: ScriptedServer, owner: User) -> McpServer:
    """A server saved before the rules existed, pointing at the recording endpoint on 127.0.0.1."""
    url = scripted.base_url.replace("/v1", "/mcp")
    return McpServer.objects.create(name="Local", transport="http", url=url, created_by=owner, connect_timeout=5)


@pytest.mark.django_db
class SavedUrlTests:
    def test_metadata_addresses_are_refused_for_staff_too(self, alice_client: Client) -> None:
        assert url_errors(alice_client, "http://169.254.169.254/latest/meta-data") == [METADATA]
        assert url_errors(alice_client, "http://[fd00:ec2::254]/mcp") == [
            "fd00:ec2::254 is a cloud metadata address; EvalHub never connects to link-local, cloud metadata, "
            "multicast or reserved addresses."
        ]
        assert not McpServer.objects.exists()

    def test_non_staff_may_not_use_loopback_or_private_addresses(self, bob_client: Client) -> None:
        assert url_errors(bob_client, "http://127.0.0.1:5432/mcp") == [
            f"127.0.0.1 is a loopback address (this machine); {STAFF_ONLY}"
        ]
        assert url_errors(bob_client, "http://10.0.0.5/mcp") == [f"10.0.0.5 is a private-network address; {STAFF_ONLY}"]
        assert not McpServer.objects.exists()

    def test_staff_may(self, alice_client: Client) -> None:
        assert url_errors(alice_client, "http://127.0.0.1:8765/mcp") == []
        assert McpServer.objects.get().url == "http://127.0.0.1:8765/mcp"

    @override_settings(EVALHUB_ALLOW_PRIVATE_URLS=True)
    def test_an_operator_may_allow_everyone(self, bob_client: Client) -> None:
        assert url_errors(bob_client, "http://localhost:8765/mcp") == []
        assert url_errors(bob_client, "http://169.254.169.254/mcp") == [METADATA]

    def test_the_api_says_the_same(self, bob: User) -> None:
        client = key_client(bob, ["evaluate:read", "evaluate:write"])

        response = client.post(
            "/api/v1/servers",
            {"name": "Mine", "transport": "sse", "url": "http://127.0.0.1:5432/sse"},
            content_type="application/json",
        )

        assert response.status_code == 400
        assert response.json()["error"]["details"]["fields"]["url"] == [
            f"127.0.0.1 is a loopback address (this machine); {STAFF_ONLY}"
        ]

    def test_provider_base_urls_refuse_metadata_addresses(self, alice_client: Client) -> None:
        data = {"name": "Meta", "base_url": "http://169.254.169.254/v1", "timeout": "30", "models_text": "m"}

        response = alice_client.post("/settings/providers/new/", data)

        assert response.context["form"].errors["base_url"] == [METADATA]
        assert not Provider.objects.filter(name="Meta").exists()


@pytest.mark.django_db
class ConnectTimeTests:
    def test_inspect_refuses_a_stored_private_url_of_a_non_staff_server(
        self, bob: User, bob_client: Client, scripted: ScriptedServer
    ) -> None:
        server = local_server(scripted, bob)

        page = html.unescape(bob_client.post(f"/servers/{server.pk}/inspect/", follow=True).content.decode())

        assert "Inspecting “Local” failed: Refused to connect: 127.0.0.1 is a loopback address (this machine); " in page
        assert scripted.received == []
        server.refresh_from_db()
        assert server.last_error is not None and server.last_error["kind"] == "address_refused"

    def test_the_api_answers_422_address_refused(self, bob: User, scripted: ScriptedServer) -> None:
        server = local_server(scripted, bob)
        client = key_client(bob, ["evaluate:read", "evaluate:write"])

        response = client.post(f"/api/v1/servers/{server.pk}/inspect")

        assert response.status_code == 422
        error = response.json()["error"]
        assert (error["code"], error["details"]["kind"]) == ("SERVER_UNREACHABLE", "address_refused")
        assert error["message"] == f"Refused to connect: 127.0.0.1 is a loopback address (this machine); {STAFF_ONLY}"

    def test_the_provider_test_button_refuses_a_stored_metadata_url(self, alice_client: Client) -> None:
        provider = Provider.objects.create(name="Meta", base_url="http://169.254.169.254/v1", model_names=["m"])

        alice_client.post(f"/settings/providers/{provider.pk}/test/", {"model": "m"})

        provider.refresh_from_db()
        assert provider.last_test is not None
        assert provider.last_test["message"] == f"refused to connect to http://169.254.169.254/v1: {METADATA}"

    @pytest.mark.worker
    def test_the_worker_refuses_it_too(
        self, worker: subprocess.Popen[bytes], alice: User, bob: User, scripted: ScriptedServer
    ) -> None:
        run = run_start(scenario=make_scenario(local_server(scripted, bob)), user=alice)

        wait_until(lambda: Run.objects.get(pk=run.pk).status == "error", timeout=60, what="the run to fail")

        run.refresh_from_db()
        assert run.error == {
            "step": "connect",
            "kind": "address_refused",
            "message": f"Refused to connect: 127.0.0.1 is a loopback address (this machine); {STAFF_ONLY}",
        }
        assert scripted.received == []
