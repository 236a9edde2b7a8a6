"""Editing a server: secrets kept, replaced or removed without ever being shown; stdio servers are staff-only."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings

from evalhub.permissions import STDIO_STAFF_ONLY
from evalhub.servers.models import McpServer
from tests.base import make_demo_server

TOKEN = "tok-edit-51c2e8"
API_KEY = "key-edit-0d94aa"
ENV_SECRET = "env-edit-77b1f0"


def make_http_server(**overrides: Any) -> McpServer:
    server = McpServer(name="Remote", transport="http", url="https://mcp.example.com/mcp", headers={"X-Tenant": "acme"})
    for name, value in overrides.items():
        setattr(server, name, value)
    server.set_secrets(bearer_token=TOKEN, env={}, headers={"X-Api-Key": API_KEY})
    server.save()
    return server


def form_data(client: Client, page: str, **changes: Any) -> dict[str, Any]:
    """What the browser would send back unchanged: the form's initial values, plus `changes`."""
    form = client.get(page).context["form"]
    data: dict[str, Any] = {}
    for name in form.fields:
        value = form[name].value()
        if value is None or value is False:
            continue
        data[name] = value
    return data | changes


def secret_field(client: Client, url: str, secret_name: str) -> str:
    form = client.get(url).context["form"]
    for row in form.fieldsets()[1].secret_rows + form.fieldsets()[2].secret_rows:
        if row.label == secret_name:
            return str(row.value.name)
    raise AssertionError(f"no secret row for {secret_name}")


@pytest.mark.django_db
class ServerEditTests:
    def test_it_shows_stored_secrets_as_set_without_their_values(self, alice_client: Client) -> None:
        server = make_http_server()

        response = alice_client.get(f"/servers/{server.pk}/edit/")

        content = response.content.decode()
        assert response.status_code == 200
        assert TOKEN not in content and API_KEY not in content
        assert content.count("•••• set</span>") == 2  # the bearer token and X-Api-Key
        assert 'aria-label="Remove header X-Api-Key"' in content
        assert 'aria-label="Remove the bearer token"' in content

    def test_leaving_secret_fields_empty_keeps_them(self, alice_client: Client) -> None:
        server = make_http_server()
        url = f"/servers/{server.pk}/edit/"

        response = alice_client.post(url, form_data(alice_client, url, description="Edited"))

        assert response.status_code == 302
        server.refresh_from_db()
        assert server.description == "Edited"
        assert server.secrets() == {"bearer_token": TOKEN, "env": {}, "headers": {"X-Api-Key": API_KEY}}

    def test_typing_a_value_replaces_a_secret_and_the_box_removes_one(self, alice_client: Client) -> None:
        server = make_http_server()
        url = f"/servers/{server.pk}/edit/"
        key_field = secret_field(alice_client, url, "X-Api-Key")

        alice_client.post(url, form_data(alice_client, url, **{key_field: "key-new", "clear_bearer_token": "on"}))

        server.refresh_from_db()
        assert server.secrets() == {"bearer_token": "", "env": {}, "headers": {"X-Api-Key": "key-new"}}

    def test_a_new_bearer_token_replaces_the_old_one(self, alice_client: Client) -> None:
        server = make_http_server()
        url = f"/servers/{server.pk}/edit/"

        alice_client.post(url, form_data(alice_client, url, bearer_token="Bearer tok-new"))

        server.refresh_from_db()
        assert server.secrets()["bearer_token"] == "tok-new"

    @override_settings(EVALHUB_SECRET_ENV_ALLOWLIST=["DEMO_TOKEN_FROM_ENV"])
    def test_staff_edit_a_stdio_servers_secret_env(self, alice_client: Client) -> None:
        server = make_demo_server()
        server.set_secrets(bearer_token="", env={"DEMO_TOKEN": ENV_SECRET}, headers={})
        server.save()
        url = f"/servers/{server.pk}/edit/"
        token_field = secret_field(alice_client, url, "DEMO_TOKEN")
        assert ENV_SECRET not in alice_client.get(url).content.decode()

        alice_client.post(url, form_data(alice_client, url, **{token_field: "${DEMO_TOKEN_FROM_ENV}"}))

        server.refresh_from_db()
        assert server.secrets()["env"] == {"DEMO_TOKEN": "${DEMO_TOKEN_FROM_ENV}"}
        assert server.args == ["-m", "evalhub.demo_server"]

    def test_switching_transport_drops_the_other_transports_secrets(self, alice_client: Client) -> None:
        server = make_http_server()
        url = f"/servers/{server.pk}/edit/"

        alice_client.post(url, form_data(alice_client, url, transport="stdio", command="my-server"))

        server.refresh_from_db()
        assert (server.transport, server.command, server.url, server.headers) == ("stdio", "my-server", "", {})
        assert server.secrets() == {"bearer_token": "", "env": {}, "headers": {}}

    def test_non_staff_edit_their_http_servers(self, bob_client: Client, bob: User) -> None:
        server = make_http_server(created_by=bob)
        url = f"/servers/{server.pk}/edit/"

        response = bob_client.post(url, form_data(bob_client, url, url="https://other.example.com/mcp"))

        assert response.status_code == 302
        server.refresh_from_db()
        assert server.url == "https://other.example.com/mcp"

    def test_non_staff_cannot_edit_a_stdio_server(self, bob_client: Client) -> None:
        server = make_demo_server()

        assert bob_client.get(f"/servers/{server.pk}/edit/").status_code == 403
        response = bob_client.post(f"/servers/{server.pk}/edit/", {"name": "Mine now", "transport": "stdio"})

        assert response.status_code == 403
        server.refresh_from_db()
        assert server.name == "Demo travel server"

    def test_non_staff_cannot_turn_an_http_server_into_a_stdio_one(self, bob_client: Client, bob: User) -> None:
        server = make_http_server(created_by=bob)
        url = f"/servers/{server.pk}/edit/"

        response = bob_client.post(url, form_data(bob_client, url, transport="stdio", command="/bin/sh"))

        assert response.status_code == 403
        server.refresh_from_db()
        assert server.transport == "http"

    def test_the_detail_page_shows_no_edit_button_to_non_staff_on_stdio_servers(self, bob_client: Client) -> None:
        server = make_demo_server()

        content = bob_client.get(f"/servers/{server.pk}/").content.decode()

        assert f"/servers/{server.pk}/edit/" not in content
        assert f"/servers/{server.pk}/delete/" not in content
        assert STDIO_STAFF_ONLY + " You can still inspect it and use it in scenarios." in content
        assert "Test connection / Inspect" in content
