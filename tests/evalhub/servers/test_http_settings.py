"""A server's HTTP transport settings on the Servers pages: saved, checked, shown, and applied to a connection."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from evalhub.mcp_client.errors import McpConnectionError
from evalhub.servers import services
from evalhub.servers.models import McpServer
from tests.evalhub.mcp_client.helpers import start_demo, stop
from tests.evalhub.mcp_client.tls_helpers import self_signed, tls_front

from .test_create import http_data, stdio_data


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return self_signed(tmp_path_factory.mktemp("tls"))


@pytest.fixture
def tls_demo_url(certificate: tuple[Path, Path]) -> Iterator[str]:
    process, port = start_demo("--http")
    try:
        with tls_front(port, *certificate) as tls_port:
            yield f"https://127.0.0.1:{tls_port}/mcp"
    finally:
        stop(process)


def settings(**overrides: Any) -> dict[str, Any]:
    return http_data(secret_headers_text="", bearer_token="", **overrides)


def errors(response: Any) -> dict[str, list[str]]:
    return dict(response.context["form"].errors)


@pytest.mark.django_db
class HttpSettingsFormTests:
    def test_they_are_saved_and_shown(self, alice_client: Client, certificate: tuple[Path, Path]) -> None:
        data = settings(
            http_timeout="12.5",
            max_redirects="3",
            user_agent_override="acme-probe/2.1",
            tls_ca_bundle_path=str(certificate[0]),
            tls_min_version="1.3",
        )

        alice_client.post("/servers/new/", data)

        server = McpServer.objects.get(name="Demo over HTTP")
        config = server.to_config()
        assert (config.http_timeout, config.max_redirects, config.user_agent_override) == (12.5, 3, "acme-probe/2.1")
        assert (config.tls_ca_bundle_path, config.tls_min_version) == (str(certificate[0]), "1.3")
        page = alice_client.get(f"/servers/{server.pk}/").content.decode()
        assert "timeout 12.5 s · up to 3 redirects · User-Agent <code>acme-probe/2.1</code>" in page
        assert f'CA bundle <code class="break">{certificate[0]}</code> · minimum TLS 1.3' in page
        assert "tls-warning" not in page

    def test_the_defaults_keep_todays_behaviour(self, alice_client: Client) -> None:
        alice_client.post("/servers/new/", settings())

        server = McpServer.objects.get(name="Demo over HTTP")
        assert (server.http_timeout, server.max_redirects, server.user_agent_override) == (None, 20, "")
        assert (server.tls_insecure_skip_verify, server.tls_ca_bundle_path, server.tls_min_version) == (False, "", "")

    def test_skipping_verification_shows_a_warning_on_the_server_page(self, alice_client: Client) -> None:
        alice_client.post("/servers/new/", settings(tls_insecure_skip_verify="on"))

        server = McpServer.objects.get(name="Demo over HTTP")
        page = alice_client.get(f"/servers/{server.pk}/").content.decode()
        assert server.tls_insecure_skip_verify
        assert '<div class="message message-warning tls-warning" role="alert"><strong>Unsafe:</strong> TLS ' in page
        assert "certificates not verified" in page

    def test_a_ca_bundle_path_is_checked(self, alice_client: Client, tmp_path: Path) -> None:
        not_pem = tmp_path / "notes.txt"
        not_pem.write_text("hello")

        missing = alice_client.post("/servers/new/", settings(tls_ca_bundle_path=str(tmp_path / "none.pem")))
        relative = alice_client.post("/servers/new/", settings(tls_ca_bundle_path="certs/ca.pem"))
        garbage = alice_client.post("/servers/new/", settings(tls_ca_bundle_path=str(not_pem)))

        assert errors(missing)["tls_ca_bundle_path"] == [
            f"There is no file at {tmp_path / 'none.pem'} on the machine EvalHub runs on."
        ]
        assert errors(relative)["tls_ca_bundle_path"] == ["Give an absolute path, starting with /."]
        assert errors(garbage)["tls_ca_bundle_path"] == [
            f"{not_pem} could not be read as PEM CA certificates; give a file of -----BEGIN CERTIFICATE----- blocks."
        ]

    def test_only_staff_may_name_a_ca_bundle(self, bob_client: Client, certificate: tuple[Path, Path]) -> None:
        response = bob_client.post("/servers/new/", settings(tls_ca_bundle_path=str(certificate[0])))

        assert errors(response)["tls_ca_bundle_path"] == [
            "Only staff can point EvalHub at a file on its own machine; ask one to set the CA bundle path."
        ]

    def test_bad_values_are_refused(self, alice_client: Client) -> None:
        response = alice_client.post(
            "/servers/new/", settings(http_timeout="0", max_redirects="51", tls_min_version="1.1")
        )

        found = errors(response)
        assert found["http_timeout"] == [
            "Give the seconds an answer may stay silent, above 0 and at most 3600, or leave it empty for no limit."
        ]
        assert found["max_redirects"] == ["Ensure this value is less than or equal to 50."]
        assert "1.1 is not one of the available choices" in found["tls_min_version"][0]

    def test_header_names_and_credentials_are_checked(self, alice_client: Client) -> None:
        response = alice_client.post(
            "/servers/new/",
            settings(headers_text="Proxy-Authorization: Basic eA==\nX Tenant: acme"),
        )

        assert errors(response)["headers_text"] == [
            "Line 2: “X Tenant” is not a valid header name (an RFC 7230 token: letters, digits and "
            "! # $ % & ' * + - . ^ _ ` | ~; no spaces or colons).",
            "Proxy-Authorization carries a credential: move it to Secret headers (or use Bearer token).",
        ]

    def test_a_stdio_server_keeps_the_defaults(self, alice_client: Client) -> None:
        alice_client.post("/servers/new/", stdio_data(tls_insecure_skip_verify="on", max_redirects="2"))

        server = McpServer.objects.get(name="Demo over stdio")
        assert (server.tls_insecure_skip_verify, server.max_redirects) == (False, 20)


@pytest.mark.django_db
class HttpSettingsAppliedTests:
    def test_a_self_signed_server_is_reached_with_its_ca_bundle_only(
        self, alice: Any, tls_demo_url: str, certificate: tuple[Path, Path]
    ) -> None:
        server = McpServer.objects.create(name="TLS demo", transport="http", url=tls_demo_url, created_by=alice)

        with pytest.raises(McpConnectionError) as refused:
            services.server_inspect(server=server)
        server.tls_ca_bundle_path = str(certificate[0])
        inspection = services.server_inspect(server=server)

        assert refused.value.kind == "tls_error"
        assert "wait" in [tool["name"] for tool in inspection.tools]
