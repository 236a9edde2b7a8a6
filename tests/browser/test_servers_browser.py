"""Register the demo server over stdio and over Streamable HTTP from the UI, inspect both, compare their tools."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from django.test import override_settings
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from evalhub.mcp_client import inspect_server
from tests.base import PASSWORD, PROJECT_DIR, PYTHON, make_demo_server
from tests.browser.conftest import log_in, screenshot
from tests.evalhub.mcp_client.helpers import FIXTURES, start_demo, stop

DEMO_TOOLS = ["get_weather", "search_flights", "book_flight", "cancel_booking", "wait"]


@pytest.fixture(scope="module")
def demo_http_url() -> Iterator[str]:
    process, port = start_demo("--http")
    yield f"http://127.0.0.1:{port}/mcp"
    stop(process)


def inspect_and_list_tools(page: Page) -> list[str]:
    page.get_by_role("button", name="Test connection / Inspect").click()
    expect(page.locator(".tool-name")).to_have_count(len(DEMO_TOOLS), timeout=30_000)
    return page.locator(".tool-name").all_inner_texts()


@pytest.mark.browser
class ServerBrowserTests:
    @override_settings(EVALHUB_SECRET_ENV_ALLOWLIST=["BROWSER_DEMO_TOKEN"])
    def test_register_and_inspect_the_demo_server_over_stdio_and_http(
        self,
        page: Page,
        live_server: LiveServer,
        alice: User,
        demo_http_url: str,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        # A secret given as ${NAME}: the live server runs in this process, so it reads this variable.
        monkeypatch.setenv("BROWSER_DEMO_TOKEN", "browser-demo-token")
        log_in(page, live_server)
        page.goto(f"{live_server.url}/servers/")
        screenshot(page, "servers-empty")
        page.get_by_role("link", name="Add a server").click()

        # stdio is the staff default; only its fields show.
        page.get_by_label("Name").fill("Demo over stdio")
        expect(page.get_by_label("URL")).to_be_hidden()
        page.get_by_label("Command", exact=True).fill(PYTHON)
        page.get_by_label("Arguments").fill("-m\nevalhub.demo_server")
        page.get_by_label("Working directory").fill(str(PROJECT_DIR))
        page.get_by_label("Secret environment variables").fill("DEMO_TOKEN=${BROWSER_DEMO_TOKEN}")
        screenshot(page, "server-form-stdio")
        page.get_by_role("button", name="Add server").click()
        expect(page.locator("h1")).to_have_text("Demo over stdio")
        expect(page.get_by_text("env DEMO_TOKEN")).to_be_visible()
        screenshot(page, "server-detail-new")

        page.evaluate("window.__notReloaded = true")
        over_stdio = inspect_and_list_tools(page)
        assert page.evaluate("window.__notReloaded") is True, "the inspection swaps in without a reload"
        assert sorted(over_stdio) == sorted(DEMO_TOOLS)
        expect(page.locator("#inspection")).to_contain_text("2026-07-28")
        expect(page.locator("#quality")).to_contain_text("No findings")
        screenshot(page, "server-inspected-stdio")

        page.get_by_placeholder("Filter tools by name, title or description").fill("flight")
        expect(page.locator(".tool:visible .tool-name")).to_have_text(["search_flights", "book_flight"])
        expect(page.locator("[data-tool-count]")).to_have_text("2 of 5 tools")
        page.locator("#tool-search_flights").get_by_text("Input schema").click()
        expect(page.locator("#tool-search_flights pre.code").first).to_be_visible()
        expect(page.locator("#tool-search_flights pre.code").first).to_contain_text('"destination"')
        screenshot(page, "server-tools-filtered")

        page.goto(f"{live_server.url}/servers/new/")
        page.get_by_label("Streamable HTTP").check()
        expect(page.get_by_label("Command", exact=True)).to_be_hidden()
        page.get_by_label("Name").fill("Demo over HTTP")
        page.get_by_label("URL").fill(demo_http_url)
        page.get_by_label("Bearer token").fill("demo-token-not-needed")
        screenshot(page, "server-form-http")
        page.get_by_role("button", name="Add server").click()
        expect(page.locator("h1")).to_have_text("Demo over HTTP")
        over_http = inspect_and_list_tools(page)
        screenshot(page, "server-inspected-http")
        page.get_by_role("link", name="Edit").click()
        expect(page.locator(".secret-table")).to_contain_text("Bearer token")
        expect(page.locator(".secret-table")).to_contain_text("•••• set")
        expect(page.get_by_label("New bearer token")).to_have_value("")
        screenshot(page, "server-edit-secrets")

        assert over_http == over_stdio
        page.goto(f"{live_server.url}/servers/")
        expect(page.locator(".server-table tbody tr")).to_have_count(2)
        expect(page.locator(".server-table .badge-pass")).to_have_count(2)
        screenshot(page, "servers-list")

    def test_a_failing_server_shows_its_sentence_and_stderr(
        self, page: Page, live_server: LiveServer, alice: User
    ) -> None:
        log_in(page, live_server)
        page.goto(f"{live_server.url}/servers/new/")
        page.get_by_label("Name").fill("Broken server")
        page.get_by_label("Command", exact=True).fill(PYTHON)
        page.get_by_label("Arguments").fill(str(FIXTURES / "exit_early.py"))
        page.get_by_role("button", name="Add server").click()

        page.get_by_role("button", name="Test connection / Inspect").click()

        # The code itself is asserted by tests/evalhub/mcp_client; here, rarely, asyncio reports 255 for a child
        # something else reaped first (under investigation), so the page's sentence is checked, not the digits.
        expect(page.locator(".inspect-error")).to_contain_text(
            re.compile(r"The server exited with code \d+ during start-up"), timeout=30_000
        )
        expect(page.locator(".inspect-error pre")).to_contain_text("error: upstream rejected token <unset>")
        screenshot(page, "server-inspect-failed")

    def test_staff_opt_a_stdio_server_in_to_warm_reuse(self, page: Page, live_server: LiveServer, alice: User) -> None:
        log_in(page, live_server)
        page.goto(f"{live_server.url}/servers/new/")
        warm = page.get_by_label("Reuse warm server processes (stateless servers only)")
        expect(page.get_by_text("Only for stateless servers: whatever a run leaves")).to_be_visible()
        page.get_by_label("Streamable HTTP").check()
        expect(warm).to_be_hidden()  # only a started process can be kept warm
        page.get_by_label("stdio (a command EvalHub starts)").check()
        page.get_by_label("Name").fill("Warm demo")
        page.get_by_label("Command", exact=True).fill(PYTHON)
        page.get_by_label("Arguments").fill("-m\nevalhub.demo_server")
        warm.check()
        page.get_by_label("Recycle a process after (runs)").fill("5")
        screenshot(page, "server-form-warm-reuse")
        page.get_by_role("button", name="Add server").click()

        expect(page.locator("h1")).to_have_text("Warm demo")
        expect(page.locator(".facts")).to_contain_text("each serves at most 5 runs")
        screenshot(page, "server-detail-warm-reuse")

    def test_a_form_error_is_explained_in_place(self, page: Page, live_server: LiveServer, alice: User) -> None:
        log_in(page, live_server)
        page.goto(f"{live_server.url}/servers/new/")
        page.get_by_label("Name").fill("Typed as a shell line")
        page.get_by_label("Command", exact=True).fill("npx -y @modelcontextprotocol/server-everything")
        page.get_by_label("Environment variables", exact=True).fill("LOG_LEVEL debug")
        page.get_by_role("button", name="Add server").click()

        expect(page.locator(".field-error").first).to_contain_text("Put only the program here (“npx”)")
        expect(page.get_by_text("Line 1 has no “=”: write one NAME=value per line.")).to_be_visible()
        expect(page.get_by_label("Command", exact=True)).to_have_value("npx -y @modelcontextprotocol/server-everything")
        screenshot(page, "server-form-errors")

    def test_the_page_says_which_tools_changed(self, page: Page, live_server: LiveServer, alice: User) -> None:
        server = make_demo_server()
        # What an older version of the server offered: no `wait` tool, another description for get_weather.
        older = [dict(tool) for tool in inspect_server(server.to_config()).tools if tool["name"] != "wait"]
        next(tool for tool in older if tool["name"] == "get_weather")["description"] = "Weather at a point."
        server.record_tools(older)
        log_in(page, live_server)
        page.goto(f"{live_server.url}/servers/{server.pk}/")

        inspect_and_list_tools(page)

        expect(page.locator(".tools-changed")).to_contain_text(
            "Tools changed since last inspection: +1 added, 1 description changed. Added wait. "
            "get_weather: description changed."
        )
        expect(page.locator("#snapshots tbody tr")).to_have_count(2)
        screenshot(page, "server-tools-changed")

    def test_non_staff_see_a_stdio_server_read_only(self, page: Page, live_server: LiveServer, bob: User) -> None:
        server = make_demo_server()
        page.goto(f"{live_server.url}/login/")
        page.get_by_label("Username").fill("bob")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()

        page.goto(f"{live_server.url}/servers/{server.pk}/")

        expect(page.get_by_text("Only staff users can add or change stdio servers")).to_be_visible()
        expect(page.get_by_role("link", name="Edit")).to_have_count(0)
        page.goto(f"{live_server.url}/servers/new/")
        expect(page.get_by_label("stdio (a command EvalHub starts)")).to_have_count(0)
        expect(page.get_by_label("Command", exact=True)).to_have_count(0)
        screenshot(page, "server-form-non-staff")
