"""The server form's HTTP transport fieldset in a browser: shown for HTTP only, and the unsafe-TLS warning."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from evalhub.servers.models import McpServer
from tests.browser.conftest import log_in, screenshot


@pytest.mark.browser
class ServerHttpSettingsBrowserTests:
    def test_the_fieldset_follows_the_transport_and_skipping_verification_warns(
        self, page: Page, live_server: LiveServer, alice: User
    ) -> None:
        log_in(page, live_server)
        page.goto(f"{live_server.url}/servers/new/")
        page.get_by_label("Name").fill("Internal MCP")
        page.get_by_label("Streamable HTTP").check()
        expect(page.get_by_label("HTTP timeout (seconds)")).to_be_visible()
        page.get_by_label("URL").fill("https://mcp.example.com/mcp")
        page.get_by_label("HTTP timeout (seconds)").fill("15")
        page.get_by_label("User-Agent override").fill("acme-probe/2.1")
        page.get_by_label("Skip TLS certificate verification (unsafe)").check()
        page.get_by_label("Minimum TLS version").select_option("1.3")
        screenshot(page, "server-form-http-settings")
        page.get_by_role("button", name="Add server").click()

        expect(page.locator(".tls-warning")).to_contain_text("TLS certificate verification is off for this server")
        screenshot(page, "server-detail-insecure")
        server = McpServer.objects.get(name="Internal MCP")
        assert (server.http_timeout, server.tls_min_version, server.tls_insecure_skip_verify) == (15.0, "1.3", True)
        page.set_viewport_size({"width": 800, "height": 900})
        screenshot(page, "server-detail-insecure-800")
        page.goto(f"{live_server.url}/servers/{server.pk}/edit/")
        screenshot(page, "server-form-http-settings-800")

        page.get_by_label("stdio").first.check()
        expect(page.get_by_label("HTTP timeout (seconds)")).to_be_hidden()
