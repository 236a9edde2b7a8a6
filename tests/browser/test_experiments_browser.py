"""An experiment from the UI: start it, watch the matrix fill, break the server, compare, read the first divergence."""

from __future__ import annotations

import subprocess

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from evalhub.scenarios.models import Tag
from evalhub.servers.models import McpServer
from scorers.models import Scorer
from tests.base import make_demo_server, make_scenario
from tests.browser.conftest import log_in, screenshot

NO_TOOL_ERRORS = (
    "async ({ output }) => output.toolCalls.length > 0 && output.toolCalls.every((c) => !c.isError) ? 1 : 0"
)
WIDTHS = (1280, 800)


def shoot(page: Page, name: str) -> None:
    """The page at both widths the layout must hold at."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        screenshot(page, f"{name}-{width}")
    page.set_viewport_size({"width": 1280, "height": 800})


def start_experiment(page: Page, live_server: LiveServer, *, label: str) -> None:
    page.goto(f"{live_server.url}/experiments/")
    page.get_by_role("link", name="New experiment").click()
    page.get_by_label("Tag").select_option("smoke")
    page.get_by_label("evalhub-offline").check()
    page.get_by_label("Trials").fill("4")
    page.get_by_label("Label").fill(label)
    page.get_by_role("button", name="Start experiment").click()


@pytest.mark.browser
@pytest.mark.worker
class ExperimentBrowserTests:
    def test_start_watch_compare_and_find_where_the_runs_part(
        self, page: Page, live_server: LiveServer, alice: User, worker: subprocess.Popen[bytes]
    ) -> None:
        server = make_demo_server()
        smoke = Tag.objects.create(name="smoke")
        scorer = Scorer.objects.create(name="No tool errors", kind="code", code=NO_TOOL_ERRORS)
        for name, prompt in [
            ("Weather in Paris", "What's the weather at latitude 48.85, longitude 2.35?"),
            ("Find flights to Rome", "Search flights from Paris to Rome on 2026-12-18."),
        ]:
            scenario = make_scenario(server, name=name, prompt=prompt, expected_tools=[])
            scenario.tags.add(smoke)
            scenario.scorers.add(scorer)
        log_in(page, live_server)

        start_experiment(page, live_server, label="v1")
        expect(page.locator("#experiment-progress")).to_contain_text("/ 8 runs")
        page.evaluate("window.__notReloaded = true")
        screenshot(page, "experiment-filling")
        expect(page.locator("#experiment-progress")).to_have_text("8 / 8 runs", timeout=180_000)
        assert page.evaluate("window.__notReloaded") is True
        cells = page.locator("#experiment-matrix td.cell")
        expect(cells).to_have_count(2)
        expect(cells.first.locator(".cell-count")).to_have_text("4/4")
        expect(cells.first).to_contain_text("pass@4 1.00 · pass^4 1.00")
        expect(page.locator("#experiment-matrix tfoot")).to_contain_text("100 % pass")
        shoot(page, "experiment-matrix")
        page.get_by_role("button", name="Pin as baseline").click()
        expect(page.get_by_text("pinned baseline of #smoke")).to_be_visible()

        # A real change of the server: its get_weather now answers an error.
        McpServer.objects.filter(pk=server.pk).update(args=["-m", "evalhub.demo_server", "--mode", "broken-weather"])
        start_experiment(page, live_server, label="v2")
        expect(page.locator("#experiment-progress")).to_have_text("8 / 8 runs", timeout=180_000)
        weather = page.locator("#experiment-matrix tbody tr", has_text="Weather in Paris").locator("td.cell")
        expect(weather.locator(".cell-count")).to_have_text("0/4")

        page.get_by_role("link", name="Compare with baseline").click()
        expect(page.locator("#compare-summary")).to_contain_text("1 regressed, 0 fixed, 1 unchanged")
        regressed = page.locator("#compare-table tr[data-kind=regressed]")
        expect(regressed).to_contain_text("Weather in Paris")
        expect(page.locator("#compare-table tr[data-kind=still_passing]")).to_contain_text("Find flights to Rome")
        shoot(page, "experiment-compare")

        regressed.get_by_role("link", name="First divergence").click()
        expect(page.locator("#divergence-sentence")).to_contain_text(
            "Step 1: same call get_weather(latitude: 48.85, longitude: 2.35), different result:"
        )
        expect(page.locator("#first-divergence")).to_contain_text("Step 1 · first difference")
        expect(page.locator(".step-side.step-first")).to_have_count(2)
        shoot(page, "experiment-divergence")
