"""The run page's fault timeline and the scenario form's fault injection, at 1280 and 800 px wide."""

from __future__ import annotations

import json
import subprocess

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from runs.models import Run
from runs.services import run_start
from tests.base import make_demo_server, make_scenario, wait_until
from tests.browser.conftest import log_in, screenshot

FAULTS = {
    "faults": [{"name": "weather down", "tool": "get_weather", "kind": "error", "message": "Weather service down"}],
    "recovery": {"max_recovery_ms": 60000, "require_told_user": True},
}


@pytest.mark.browser
class FaultTimelineBrowserTests:
    @pytest.mark.worker
    def test_the_run_page_shows_which_call_got_which_fault_and_what_came_next(
        self, page: Page, live_server: LiveServer, alice: User, worker: subprocess.Popen[bytes]
    ) -> None:
        scenario = make_scenario(make_demo_server(), fault_injection=FAULTS)
        run = run_start(scenario=scenario, user=alice)
        finished = Run.objects.filter(pk=run.pk, status__in=Run.FINISHED).exists
        wait_until(finished, timeout=60, what=f"the worker to finish run {run.pk}")
        log_in(page, live_server)
        for width in (1280, 800):
            page.set_viewport_size({"width": width, "height": 900})
            page.goto(f"{live_server.url}/runs/{run.pk}/")
            timeline = page.locator("#fault-timeline")
            expect(timeline.locator("tbody tr")).to_have_count(1)
            expect(timeline.locator("tbody tr")).to_contain_text("weather down")
            expect(timeline.locator("tbody tr")).to_contain_text("answered the user")
            expect(page.locator("#call-1 .badge-warn")).to_have_text("injected error")
            expect(page.get_by_label("Recovery checks")).to_contain_text("the agent never recovered")
            # The table fits the card (it scrolls inside it, never the page).
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            screenshot(page, f"run-fault-timeline-{width}")
        timeline.get_by_role("link", name="#1").click()
        expect(page.locator("#call-1")).to_be_in_viewport()

    def test_the_scenario_form_names_a_bad_fault(self, page: Page, live_server: LiveServer, alice: User) -> None:
        scenario = make_scenario(make_demo_server())
        log_in(page, live_server)
        page.set_viewport_size({"width": 800, "height": 900})
        page.goto(f"{live_server.url}/scenarios/{scenario.pk}/edit/")
        page.get_by_label("Fault injection").fill(json.dumps({"faults": [{"kind": "slow"}]}))
        page.get_by_role("button", name="Save").click()
        expect(page.locator("body")).to_contain_text(
            "fault_injection.faults[0].delay_ms: a slow fault needs the delay in milliseconds"
        )
        screenshot(page, "scenario-form-fault-error-800")
        valid = {"faults": [{"tool": "search_flights", "kind": "slow", "delay_ms": 3000}]}
        page.get_by_label("Fault injection").fill(json.dumps(valid))
        page.get_by_role("button", name="Save").click()
        expect(page.locator("#scenario-faults")).to_contain_text("slow search_flights")
        screenshot(page, "scenario-faults-800")
