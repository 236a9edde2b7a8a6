"""An experiment from the UI: start it, watch the matrix fill, break the server, compare, read the first divergence."""

from __future__ import annotations

import re
import subprocess

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Locator, Page, expect
from pytest_django.live_server_helper import LiveServer

from evalhub.demo import DEMO_SERVER, seed_demo_scenarios, seed_demo_scorers, seed_demo_server
from evalhub.servers.models import McpServer
from tests.browser.conftest import log_in, screenshot

WIDTHS = (1280, 800)


def shoot(page: Page, name: str) -> None:
    """The page at both widths the layout must hold at."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 800})
        screenshot(page, f"{name}-{width}")
    page.set_viewport_size({"width": 1280, "height": 800})


def start_experiment(page: Page, live_server: LiveServer, *, label: str, trials: int = 5) -> None:
    page.goto(f"{live_server.url}/experiments/")
    page.get_by_role("link", name="New experiment").click()
    page.get_by_label("Tag").select_option("smoke")
    page.get_by_label("evalhub-offline").check()
    page.get_by_role("spinbutton", name="Trials").fill(str(trials))
    page.get_by_label("Label").fill(label)
    page.get_by_role("button", name="Start experiment").click()


def scenario_row(page: Page, table: str, name: str) -> Locator:
    """The row of exactly this scenario ("Weather in Paris", not "Weather in Paris (code mode)")."""
    return page.locator(f"{table} tbody tr").filter(has=page.get_by_text(re.compile(f"^{re.escape(name)}$")))


@pytest.mark.browser
@pytest.mark.worker
class ExperimentBrowserTests:
    def test_the_readme_regression_recipe_start_watch_compare_and_find_where_the_runs_part(
        self, page: Page, live_server: LiveServer, alice: User, worker: subprocess.Popen[bytes]
    ) -> None:
        """README, Experiments, "To see one in the demo": the demo's smoke tag, 5 trials, pinned; then the demo
        server with --mode broken-weather, compared."""
        for seed in (seed_demo_server, seed_demo_scenarios, seed_demo_scorers):
            seed()
        log_in(page, live_server)

        start_experiment(page, live_server, label="v1")
        expect(page.locator("#experiment-progress")).to_contain_text("/ 15 runs")
        page.evaluate("window.__notReloaded = true")
        screenshot(page, "experiment-filling")
        expect(page.locator("#experiment-progress")).to_have_text("15 / 15 runs", timeout=180_000)
        assert page.evaluate("window.__notReloaded") is True
        expect(page.locator("#experiment-matrix td.cell")).to_have_count(3)
        weather = scenario_row(page, "#experiment-matrix", "Weather in Paris").locator("td.cell")
        expect(weather.locator(".cell-count")).to_have_text("5/5")
        expect(weather).to_contain_text("5 passed · 0 failed")
        expect(weather).to_contain_text("pass@5 1.00 · pass^5 1.00")
        expect(page.locator("#experiment-matrix tfoot")).to_contain_text("100 % pass")
        expect(page.get_by_text("re-run once (each re-run counts against the daily quota)")).to_be_visible()
        shoot(page, "experiment-matrix")
        page.get_by_role("button", name="Pin as baseline").click()
        expect(page.get_by_text("pinned baseline of #smoke")).to_be_visible()

        # A real change of the server: its get_weather now answers an error.
        McpServer.objects.filter(name=DEMO_SERVER).update(
            args=["-m", "evalhub.demo_server", "--mode", "broken-weather"]
        )
        start_experiment(page, live_server, label="v2")
        expect(page.locator("#experiment-progress")).to_have_text("15 / 15 runs", timeout=180_000)
        weather = scenario_row(page, "#experiment-matrix", "Weather in Paris").locator("td.cell")
        expect(weather.locator(".cell-count")).to_have_text("0/5")
        expect(weather).to_contain_text("0 passed · 5 failed")
        expect(weather).to_contain_text("causes: server 5")
        expect(weather).to_contain_text("failed at: result returned 5")
        shoot(page, "experiment-matrix-broken")

        page.get_by_role("link", name="Compare with baseline").click()
        expect(page.locator("#compare-summary")).to_contain_text("2 regressed, 0 fixed, 1 unchanged")
        regressed = scenario_row(page, "#compare-table", "Weather in Paris")
        expect(regressed).to_have_attribute("data-kind", "regressed")
        expect(regressed).to_contain_text("5/5 → 0/5 · p 0.008")
        expect(regressed).to_contain_text("causes: server 5")
        still = scenario_row(page, "#compare-table", "Find flights to Rome")
        expect(still).to_have_attribute("data-kind", "still_passing")
        shoot(page, "experiment-compare")

        regressed.get_by_role("link", name="First divergence").click()
        expect(page.locator("#divergence-sentence")).to_contain_text(
            "Step 1: same call get_weather(latitude: 48.85, longitude: 2.35), different result:"
        )
        expect(page.locator("#first-divergence")).to_contain_text("Step 1 · first difference")
        expect(page.locator(".step-side.step-first")).to_have_count(2)
        shoot(page, "experiment-divergence")
