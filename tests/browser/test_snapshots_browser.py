"""A run whose `$snapshot` check failed: its page lists the snapshot checks, and Update snapshot stores the value
(the run executed in the test process on the demo server over stdio; the page driven in Chromium)."""

from __future__ import annotations

import threading

import pytest
from django.contrib.auth.models import User
from django.db import connection
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from evalhub.scenarios.models import Scenario
from runs.models import ExpectationSnapshot, Run
from tests.browser.conftest import SCREENSHOTS, log_in
from tests.runs.test_snapshots import KEY, execute, weather_scenario


def execute_beside_the_browser(scenario: Scenario, user: User) -> Run:
    """The run, executed in a thread of its own: Playwright's sync API holds this thread's event loop."""
    ran: list[Run] = []

    def target() -> None:
        try:
            ran.append(execute(scenario, user))
        finally:
            connection.close()

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    return ran[0]


@pytest.mark.browser
class UpdateSnapshotBrowserTests:
    @pytest.mark.parametrize("width", [1280, 800])
    def test_a_failed_snapshot_is_stored_from_the_run_page(
        self, page: Page, live_server: LiveServer, alice: User, width: int
    ) -> None:
        scenario = weather_scenario(alice)
        ExpectationSnapshot.objects.create(
            scenario=scenario, key=KEY, value={"temperature_c": -40, "conditions": "snow"}
        )
        run = execute_beside_the_browser(scenario, alice)
        page.set_viewport_size({"width": width, "height": 900})
        log_in(page, live_server)

        page.goto(f"{live_server.url}/runs/{run.pk}/")

        snapshots = page.locator(".snapshots")
        expect(snapshots.locator(".snapshot")).to_have_count(1)
        expect(snapshots.locator(".snapshot-key")).to_have_text(KEY)
        expect(snapshots.locator(".badge")).to_have_text("mismatched")
        expect(page.locator(".check-fail .diff-message")).to_contain_text(f'differs from snapshot "{KEY}"')
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.locator(".scorer").first.screenshot(path=str(SCREENSHOTS / f"run-snapshots-{width}.png"))

        snapshots.get_by_role("button", name="Update snapshot").click()

        expect(page.locator(".messages")).to_contain_text("later runs compare with them")
        stored = ExpectationSnapshot.objects.get(scenario=scenario, key=KEY)
        assert stored.value != {"temperature_c": -40, "conditions": "snow"}
        assert stored.updated_by == alice
