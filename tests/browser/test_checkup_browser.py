"""*Check up* on a server's page: the check-up page follows it live (htmx polling) until the scored report, which
reads at 1280 and 800 px."""

from __future__ import annotations

import subprocess

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.base import make_demo_server
from tests.browser.conftest import log_in, screenshot


@pytest.mark.browser
@pytest.mark.worker
class CheckupBrowserTests:
    def test_check_up_follows_live_to_the_report(
        self, page: Page, live_server: LiveServer, alice: User, worker: subprocess.Popen[bytes]
    ) -> None:
        server = make_demo_server()
        log_in(page, live_server)
        page.goto(f"{live_server.url}/servers/{server.pk}/")
        page.get_by_role("button", name="Check up").click()
        expect(page).to_have_url(f"{live_server.url}/checkups/{server.checkups.get().pk}/")
        # The status panel says what it is doing, then, without a reload, the verdict (its shipped evals' runs
        # included: the worker runs them too).
        expect(page.locator(".checkup-verdict")).to_have_text("PASS", timeout=180_000)
        for title in ("Static quality", "Protocol compliance", "Runtime sweep", "Shipped evals"):
            expect(page.get_by_role("heading", name=title)).to_be_visible()
        expect(page.locator("tr.finding-info").filter(has_text="book_flight")).to_be_visible()
        screenshot(page, "checkup-1280")
        page.set_viewport_size({"width": 800, "height": 900})
        screenshot(page, "checkup-800")
        table = page.locator(".checkup-findings").first
        assert table.bounding_box()["width"] <= 800  # type: ignore[index]
        page.goto(f"{live_server.url}/servers/{server.pk}/")
        expect(page.locator(".checkup-card")).to_contain_text("PASS")
        screenshot(page, "checkup-server-800")
