"""/api/v1/servers: list, create, get, update, delete, inspect; secrets never come back."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.servers.models import McpServer
from tests.api.conftest import KeyClient
from tests.api.helpers import assert_error
from tests.base import PROJECT_DIR, PYTHON, make_demo_server, make_scenario

HTTP_SERVER = {"name": "Remote", "transport": "http", "url": "https://mcp.example.com/mcp"}


def post(client: Client, path: str, data: Any) -> Any:
    return client.post(path, data, content_type="application/json")


def patch(client: Client, path: str, data: Any) -> Any:
    return client.patch(path, data, content_type="application/json")


@pytest.mark.django_db
class ServerListTests:
    def test_it_lists_with_pagination_and_filters(self, reader_api: Client) -> None:
        make_demo_server()
        for n in range(3):
            McpServer.objects.create(name=f"HTTP {n}", transport="http", url=f"https://h{n}.example.com/mcp")

        page = reader_api.get("/api/v1/servers?transport=http&limit=2&offset=1").json()

        assert (page["total"], page["limit"], page["offset"]) == (3, 2, 1)
        assert [s["name"] for s in page["items"]] == ["HTTP 1", "HTTP 2"]
        assert reader_api.get("/api/v1/servers?q=demo").json()["total"] == 1

    def test_it_rejects_an_unknown_transport(self, reader_api: Client) -> None:
        assert_error(reader_api.get("/api/v1/servers?transport=ftp"), 400, "VALIDATION_ERROR")


@pytest.mark.django_db
class ServerCreateTests:
    def test_it_registers_an_http_server_and_shows_only_secret_names(self, writer_api: Client) -> None:
        data = {**HTTP_SERVER, "bearer_token": "tok-SECRET-1", "secret_headers": {"X-Api-Key": "hdr-SECRET-2"}}

        response = post(writer_api, "/api/v1/servers", data)

        assert response.status_code == 201, response.content
        body = response.json()
        assert body["secret_names"] == ["Bearer token", "header X-Api-Key"]
        assert "SECRET" not in response.content.decode()
        server = McpServer.objects.get(pk=body["id"])
        assert server.secrets()["bearer_token"] == "tok-SECRET-1"
        assert server.created_by is not None and server.created_by.username == "bob"

    def test_it_validates_with_the_server_form(self, writer_api: Client) -> None:
        response = post(writer_api, "/api/v1/servers", {**HTTP_SERVER, "url": "ftp://nope"})

        error = assert_error(response, 400, "VALIDATION_ERROR")
        assert "url" in error["details"]["fields"]

    def test_it_refuses_a_credential_in_plain_headers(self, writer_api: Client) -> None:
        response = post(writer_api, "/api/v1/servers", {**HTTP_SERVER, "headers": {"Authorization": "Bearer x"}})

        assert "headers" in assert_error(response, 400, "VALIDATION_ERROR")["details"]["fields"]

    def test_a_duplicate_name_is_a_validation_error(self, writer_api: Client) -> None:
        post(writer_api, "/api/v1/servers", HTTP_SERVER)

        assert_error(post(writer_api, "/api/v1/servers", HTTP_SERVER), 400, "VALIDATION_ERROR")

    def test_a_stdio_server_needs_the_admin_scope(self, alice: User, make_client: KeyClient) -> None:
        client = make_client(alice, "evaluate:read", "evaluate:write")
        stdio = {"name": "Local", "transport": "stdio", "command": PYTHON, "args": ["-m", "evalhub.demo_server"]}

        assert_error(post(client, "/api/v1/servers", stdio), 403, "INSUFFICIENT_PERMISSIONS")
        assert not McpServer.objects.exists()

    def test_a_stdio_server_needs_a_staff_account_even_with_the_scope(self, bob: User, make_client: KeyClient) -> None:
        client = make_client(bob, "evaluate:write", "evaluate:admin")
        stdio = {"name": "Local", "transport": "stdio", "command": PYTHON}

        error = assert_error(post(client, "/api/v1/servers", stdio), 403, "INSUFFICIENT_PERMISSIONS")
        assert error["details"]["requires_staff"] is True

    def test_staff_with_the_admin_scope_registers_a_stdio_server(self, admin_api: Client) -> None:
        stdio = {
            "name": "Local",
            "transport": "stdio",
            "command": PYTHON,
            "args": ["-m", "evalhub.demo_server"],
            "cwd": str(PROJECT_DIR),
            "secret_env": {"DEMO_TOKEN": "env-SECRET-3"},
        }

        response = post(admin_api, "/api/v1/servers", stdio)

        assert response.status_code == 201, response.content
        assert response.json()["args"] == ["-m", "evalhub.demo_server"]
        assert response.json()["secret_names"] == ["env DEMO_TOKEN"]
        assert "SECRET" not in response.content.decode()

    def test_it_requires_the_write_scope(self, reader_api: Client) -> None:
        assert_error(post(reader_api, "/api/v1/servers", HTTP_SERVER), 403, "INSUFFICIENT_PERMISSIONS")

    def test_staff_opts_a_stdio_server_in_to_warm_reuse(self, admin_api: Client) -> None:
        stdio = {"name": "Warm", "transport": "stdio", "command": PYTHON, "args": ["-m", "evalhub.demo_server"]}

        created = post(admin_api, "/api/v1/servers", {**stdio, "warm_reuse": True, "warm_recycle_after": 5})
        changed = patch(admin_api, f"/api/v1/servers/{created.json()['id']}", {"warm_recycle_after": 7})
        refused = post(admin_api, "/api/v1/servers", {**stdio, "name": "Bad", "warm_recycle_after": 0})

        assert created.status_code == 201, created.content
        assert (created.json()["warm_reuse"], created.json()["warm_recycle_after"]) == (True, 5)
        assert (changed.json()["warm_reuse"], changed.json()["warm_recycle_after"]) == (True, 7)
        assert refused.status_code == 400

    def test_an_http_server_cannot_be_kept_warm(self, writer_api: Client) -> None:
        error = assert_error(
            post(writer_api, "/api/v1/servers", {**HTTP_SERVER, "warm_reuse": True}), 400, "VALIDATION_ERROR"
        )
        assert error["message"].startswith("warm_reuse: only a stdio server's processes can be kept warm")
        assert not McpServer.objects.exists()


@pytest.mark.django_db
class ServerDetailTests:
    def test_it_gets_one(self, reader_api: Client) -> None:
        server = make_demo_server()

        body = reader_api.get(f"/api/v1/servers/{server.pk}").json()

        assert (body["name"], body["transport"], body["tool_names"]) == (server.name, "stdio", [])

    def test_a_missing_one_is_404(self, reader_api: Client) -> None:
        assert_error(reader_api.get("/api/v1/servers/424242"), 404, "RESOURCE_NOT_FOUND")

    def test_plain_credentials_stored_before_are_masked(self, reader_api: Client) -> None:
        server = McpServer.objects.create(
            name="Old", transport="http", url="https://x.example.com/mcp", headers={"Authorization": "Bearer leaked"}
        )

        body = reader_api.get(f"/api/v1/servers/{server.pk}").json()

        assert body["headers"] == {"Authorization": "••••"}


@pytest.mark.django_db
class ServerUpdateTests:
    def test_it_changes_only_the_fields_sent_and_keeps_secrets(self, writer_api: Client) -> None:
        created = post(writer_api, "/api/v1/servers", {**HTTP_SERVER, "bearer_token": "tok-1"}).json()

        response = patch(writer_api, f"/api/v1/servers/{created['id']}", {"description": "Prod", "request_timeout": 90})

        assert response.status_code == 200, response.content
        server = McpServer.objects.get(pk=created["id"])
        assert (server.description, server.request_timeout, server.url) == ("Prod", 90, HTTP_SERVER["url"])
        assert server.secrets()["bearer_token"] == "tok-1"

    def test_it_replaces_and_clears_secrets(self, writer_api: Client) -> None:
        data = {**HTTP_SERVER, "bearer_token": "tok-1", "secret_headers": {"X-A": "a", "X-B": "b"}}
        created = post(writer_api, "/api/v1/servers", data).json()

        patch(writer_api, f"/api/v1/servers/{created['id']}", {"bearer_token": "", "secret_headers": {"X-C": "c"}})

        secrets = McpServer.objects.get(pk=created["id"]).secrets()
        assert (secrets["bearer_token"], secrets["headers"]) == ("", {"X-C": "c"})

    def test_a_null_secret_is_left_unchanged(self, writer_api: Client) -> None:
        # Schemathesis found this one: null for a write-only secret used to answer 500 (a KeyError).
        data = {**HTTP_SERVER, "bearer_token": "tok-1", "secret_headers": {"X-A": "a"}}
        created = post(writer_api, "/api/v1/servers", data).json()

        response = patch(writer_api, f"/api/v1/servers/{created['id']}", {"bearer_token": None, "secret_headers": None})

        assert response.status_code == 200, response.content
        assert response.json()["secret_names"] == ["Bearer token", "header X-A"]
        secrets = McpServer.objects.get(pk=created["id"]).secrets()
        assert (secrets["bearer_token"], secrets["headers"]) == ("tok-1", {"X-A": "a"})

    def test_a_url_with_a_line_break_is_refused(self, writer_api: Client) -> None:
        created = post(writer_api, "/api/v1/servers", HTTP_SERVER).json()

        response = patch(writer_api, f"/api/v1/servers/{created['id']}", {"url": "https://mcp.example.com/\nmcp"})

        error = assert_error(response, 400, "VALIDATION_ERROR")
        assert error["message"] == (
            "url: The URL must be one line without spaces or control characters (it contains '\\n' at character "
            "25); remove it, or percent-encode a space as %20."
        )
        assert McpServer.objects.get(pk=created["id"]).url == HTTP_SERVER["url"]

    def test_changing_a_stdio_server_needs_admin(self, alice: User, make_client: KeyClient) -> None:
        server = make_demo_server()
        client = make_client(alice, "evaluate:read", "evaluate:write")

        assert_error(
            patch(client, f"/api/v1/servers/{server.pk}", {"description": "x"}), 403, "INSUFFICIENT_PERMISSIONS"
        )

    def test_turning_a_server_into_stdio_needs_admin(self, writer_api: Client) -> None:
        created = post(writer_api, "/api/v1/servers", HTTP_SERVER).json()
        change = {"transport": "stdio", "command": PYTHON}

        assert_error(patch(writer_api, f"/api/v1/servers/{created['id']}", change), 403, "INSUFFICIENT_PERMISSIONS")

    def test_admin_edits_a_stdio_server(self, admin_api: Client) -> None:
        server = make_demo_server()

        response = patch(admin_api, f"/api/v1/servers/{server.pk}", {"args": ["-m", "evalhub.demo_server", "--x"]})

        assert response.status_code == 200, response.content
        server.refresh_from_db()
        assert server.args == ["-m", "evalhub.demo_server", "--x"]


@pytest.mark.django_db
class ServerDeleteTests:
    def test_it_deletes(self, writer_api: Client) -> None:
        created = post(writer_api, "/api/v1/servers", HTTP_SERVER).json()

        assert writer_api.delete(f"/api/v1/servers/{created['id']}").status_code == 204
        assert not McpServer.objects.exists()

    def test_a_server_that_scenarios_use_is_a_conflict(self, admin_api: Client) -> None:
        scenario = make_scenario(make_demo_server())

        error = assert_error(admin_api.delete(f"/api/v1/servers/{scenario.server_id}"), 409, "CONFLICT")

        assert error["details"]["scenarios"] == [scenario.name]

    def test_it_requires_the_write_scope(self, reader_api: Client) -> None:
        server = make_demo_server()

        assert_error(reader_api.delete(f"/api/v1/servers/{server.pk}"), 403, "INSUFFICIENT_PERMISSIONS")


@pytest.mark.django_db
class ServerInspectTests:
    def test_it_inspects_the_demo_server(self, writer_api: Client) -> None:
        server = make_demo_server()

        response = writer_api.post(f"/api/v1/servers/{server.pk}/inspect")

        assert response.status_code == 200, response.content
        body = response.json()
        assert "get_weather" in [tool["name"] for tool in body["tools"]]
        assert reader_tools(writer_api, server.pk) == [tool["name"] for tool in body["tools"]]

    def test_an_unreachable_server_is_a_422(self, writer_api: Client) -> None:
        server = make_demo_server(command="/nonexistent/mcp-server", args=[])

        error = assert_error(writer_api.post(f"/api/v1/servers/{server.pk}/inspect"), 422, "SERVER_UNREACHABLE")

        assert error["details"]["kind"] == "command_not_found"


def reader_tools(client: Client, server_id: int) -> list[str]:
    return client.get(f"/api/v1/servers/{server_id}").json()["tool_names"]  # type: ignore[no-any-return]
