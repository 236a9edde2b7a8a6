"""/api/v1/servers: the HTTP transport settings go in, come out, and are checked like the form checks them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from evalhub.servers.models import McpServer
from tests.api.helpers import assert_error
from tests.evalhub.mcp_client.tls_helpers import self_signed

HTTP_SERVER = {"name": "Remote", "transport": "http", "url": "https://mcp.example.com/mcp"}


def send(client: Client, method: str, path: str, data: Any) -> Any:
    return getattr(client, method)(path, data, content_type="application/json")


@pytest.mark.django_db
class ServerHttpSettingsApiTests:
    def test_they_are_saved_returned_and_cleared(self, admin_api: Client, tmp_path: Path) -> None:
        bundle = str(self_signed(tmp_path)[0])
        data = {
            **HTTP_SERVER,
            "http_timeout": 12.5,
            "max_redirects": 3,
            "user_agent_override": "acme-probe/2.1",
            "tls_ca_bundle_path": bundle,
            "tls_min_version": "1.3",
        }

        created = send(admin_api, "post", "/api/v1/servers", data).json()
        cleared = send(admin_api, "patch", f"/api/v1/servers/{created['id']}", {"http_timeout": None}).json()

        assert {key: created[key] for key in data if key != "name"} == {
            key: value for key, value in data.items() if key != "name"
        }
        assert created["tls_insecure_skip_verify"] is False
        assert cleared["http_timeout"] is None and cleared["max_redirects"] == 3
        assert McpServer.objects.get().http_timeout is None

    def test_a_ca_bundle_needs_staff(self, writer_api: Client, tmp_path: Path) -> None:
        bundle = str(self_signed(tmp_path)[0])

        error = assert_error(
            send(writer_api, "post", "/api/v1/servers", {**HTTP_SERVER, "tls_ca_bundle_path": bundle}),
            400,
            "VALIDATION_ERROR",
        )

        assert error["message"] == (
            "tls_ca_bundle_path: Only staff can point EvalHub at a file on its own machine; ask one to set the CA "
            "bundle path."
        )

    def test_credential_headers_are_refused_as_plain_headers(self, writer_api: Client) -> None:
        sent = {**HTTP_SERVER, "headers": {"Authorization": "Bearer abc"}}

        error = assert_error(send(writer_api, "post", "/api/v1/servers", sent), 400, "VALIDATION_ERROR")

        assert error["message"] == (
            "headers: Authorization carries a credential: move it to Secret headers (or use Bearer token)."
        )
        assert "abc" not in str(error)

    def test_out_of_range_values_are_refused(self, writer_api: Client) -> None:
        for field, value in (("max_redirects", 51), ("http_timeout", 0), ("tls_min_version", "1.1")):
            response = send(writer_api, "post", "/api/v1/servers", {**HTTP_SERVER, field: value})
            assert_error(response, 400, "VALIDATION_ERROR")
        assert not McpServer.objects.exists()
