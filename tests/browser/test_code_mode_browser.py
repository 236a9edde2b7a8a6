"""A code-mode run from the scenario page to its transcript: the program, and its nested call in the tool table."""

from __future__ import annotations

import subprocess

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.base import make_demo_server, make_scenario
from tests.browser.conftest import log_in, screenshot


@pytest.mark.browser
@pytest.mark.worker
class CodeModeBrowserTests:
    def test_a_code_mode_run_shows_its_program_and_nested_call(
        self, page: Page, live_server: LiveServer, alice: User, worker: subprocess.Popen[bytes]
    ) -> None:
        scenario = make_scenario(make_demo_server(), name="Weather in Paris (code mode)", tool_mode="code")
        log_in(page, live_server)

        page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
        page.get_by_role("button", name="Run", exact=True).click()
        expect(page.locator(".turn-final")).to_be_visible(timeout=30_000)
        # Scored and finished: the live status bar (with its Cancel button) goes away.
        expect(page.get_by_role("button", name="Cancel run")).to_have_count(0, timeout=30_000)

        # The program's call holds its nested get_weather call (3.1 under call 3, depth first).
        expect(page.locator(".call-name")).to_have_text(["run_code", "get_weather"])
        program = page.locator("details.call").first
        program.locator("summary").first.click()
        expect(program.locator(".program")).to_contain_text("const result = await tools.get_weather(")
        expect(program.locator(".nested-calls .call-name")).to_have_text(["get_weather"])
        expect(page.locator(".turn-final")).to_contain_text("Paris")
        page.locator(".transcript").scroll_into_view_if_needed()
        screenshot(page, "code-mode-run-1280")
        page.set_viewport_size({"width": 800, "height": 800})
        screenshot(page, "code-mode-run-800")
        # The program wraps inside the transcript card at 800 px (the tool table beside it is the run page's own).
        box = program.locator(".program").bounding_box()
        card = page.locator(".transcript").bounding_box()
        assert box is not None and card is not None
        assert box["x"] + box["width"] <= card["x"] + card["width"] <= 800
