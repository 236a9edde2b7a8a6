"""Stored secrets stay with the address they were entered for: a new scheme, host or port drops a server's bearer
token and secret headers, and a provider's API key and secret headers, unless the same save types them again.
Both addresses are real endpoints on 127.0.0.1 (different ports) that record what they receive."""

from __future__ import annotations

import html
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.providers.models import Provider
from evalhub.servers.models import McpServer
from tests.api.conftest import key_client
from tests.evalhub.model_client.scripted_server import ScriptedServer

TOKEN = "tok-follows-url-4e1a"
HEADER_SECRET = "hdr-follows-url-b7c3"
KEY = "sk-follows-url-0f9d"
DROPPED = (
    "The URL now points at another address, so its stored secrets were removed ({}): they were entered for the old "
    "address. Enter them again if the new one needs them."
)


@pytest.fixture
def elsewhere() -> Iterator[ScriptedServer]:
    """Another endpoint: the one the URL is changed to."""
    server = ScriptedServer()
    yield server
    server.close()


def mcp_url(endpoint: ScriptedServer, path: str = "/mcp") -> str:
    return endpoint.base_url.replace("/v1", path)


def sent_secrets(endpoint: ScriptedServer) -> list[str]:
    values = [value for received in endpoint.received for value in received.headers.values()]
    return [secret for secret in (TOKEN, HEADER_SECRET, KEY) if any(secret in value for value in values)]


@pytest.fixture
def server(alice: User, scripted: ScriptedServer) -> McpServer:
    server = McpServer(name="Remote", transport="http", url=mcp_url(scripted), created_by=alice, connect_timeout=5)
    server.set_secrets(bearer_token=TOKEN, env={}, headers={"X-Api-Key": HEADER_SECRET})
    server.save()
    return server


def edit_form(client: Client, page: str, **changes: Any) -> dict[str, Any]:
    """What the browser sends back unchanged (secret fields empty: they are never rendered), plus `changes`."""
    form = client.get(page).context["form"]
    data = {name: form[name].value() for name in form.fields if form[name].value() not in (None, False)}
    return data | changes


@pytest.mark.django_db
class ServerUrlChangeTests:
    def test_a_new_port_drops_the_secrets_and_inspect_sends_none(
        self, alice_client: Client, server: McpServer, elsewhere: ScriptedServer
    ) -> None:
        page = f"/servers/{server.pk}/edit/"

        response = alice_client.post(page, edit_form(alice_client, page, url=mcp_url(elsewhere)), follow=True)
        alice_client.post(f"/servers/{server.pk}/inspect/")

        assert DROPPED.format("header X-Api-Key, Bearer token") in html.unescape(response.content.decode())
        server.refresh_from_db()
        assert server.secrets() == {"bearer_token": "", "env": {}, "headers": {}}
        assert elsewhere.received and sent_secrets(elsewhere) == []

    def test_secrets_typed_in_the_same_save_are_kept(
        self, alice_client: Client, server: McpServer, elsewhere: ScriptedServer
    ) -> None:
        page = f"/servers/{server.pk}/edit/"

        alice_client.post(page, edit_form(alice_client, page, url=mcp_url(elsewhere), bearer_token="tok-new"))

        server.refresh_from_db()
        assert server.secrets() == {"bearer_token": "tok-new", "env": {}, "headers": {}}

    def test_a_new_path_on_the_same_address_keeps_them(self, alice_client: Client, server: McpServer) -> None:
        page = f"/servers/{server.pk}/edit/"
        same_origin = server.url.replace("/mcp", "/other/mcp")

        response = alice_client.post(page, edit_form(alice_client, page, url=same_origin), follow=True)

        assert "its stored secrets were removed" not in response.content.decode()
        server.refresh_from_db()
        assert server.secrets() == {"bearer_token": TOKEN, "env": {}, "headers": {"X-Api-Key": HEADER_SECRET}}

    def test_the_api_drops_them_unless_the_request_sends_them_again(
        self, alice: User, server: McpServer, elsewhere: ScriptedServer
    ) -> None:
        client = key_client(alice, ["evaluate:read", "evaluate:write"])
        path = f"/api/v1/servers/{server.pk}"

        moved = client.patch(path, {"url": mcp_url(elsewhere)}, content_type="application/json")
        back = client.patch(path, {"url": server.url, "bearer_token": "tok-again"}, content_type="application/json")

        assert moved.status_code == 200 and moved.json()["secret_names"] == []
        assert back.status_code == 200 and back.json()["secret_names"] == ["Bearer token"]
        server.refresh_from_db()
        assert server.secrets()["bearer_token"] == "tok-again"


@pytest.mark.django_db
class ProviderUrlChangeTests:
    def test_a_new_host_drops_the_key_and_secret_headers_and_test_sends_none(
        self, alice_client: Client, scripted: ScriptedServer, elsewhere: ScriptedServer
    ) -> None:
        provider = Provider(name="Gateway", base_url=scripted.base_url, model_names=["gpt-4o"], timeout=5)
        provider.set_secrets(api_key=KEY, headers={"X-Auth-Token": HEADER_SECRET})
        provider.save()
        page = f"/settings/providers/{provider.pk}/edit/"

        response = alice_client.post(page, edit_form(alice_client, page, base_url=elsewhere.base_url), follow=True)
        alice_client.post(f"/settings/providers/{provider.pk}/test/", {"model": "gpt-4o"})

        assert DROPPED.format("header X-Auth-Token, API key") in html.unescape(response.content.decode())
        provider.refresh_from_db()
        assert provider.secrets() == {"api_key": "", "headers": {}}
        assert elsewhere.received and sent_secrets(elsewhere) == []
        assert "authorization" not in elsewhere.received[0].headers
