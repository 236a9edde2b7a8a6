"""The issue's "done": a server author rewrites one tool description in the experiment form, runs 5 trials against
the server as it is, and reads "fixed" with its p-value and the confusion matrix that explains it — the server
untouched. Screenshots at 1280 and 800 px."""

from __future__ import annotations

import json
import subprocess

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from evalhub.demo import DEMO_SERVER, seed_demo_server
from evalhub.providers.models import offline_provider
from evalhub.scenarios.models import Tag
from evalhub.servers.models import McpServer
from tests.base import make_scenario
from tests.browser.conftest import log_in
from tests.browser.test_experiments_browser import shoot
from tests.runs.variants.test_suggest import PROMPT, REWRITTEN


@pytest.mark.browser
@pytest.mark.worker
class VariantBrowserTests:
    def test_rewrite_a_description_in_the_form_run_5_trials_and_read_fixed_with_the_confusion_matrix(
        self, page: Page, live_server: LiveServer, alice: User, worker: subprocess.Popen[bytes]
    ) -> None:
        seed_demo_server()
        server = McpServer.objects.get(name=DEMO_SERVER)
        args_before = list(server.args)
        scenario = make_scenario(
            server, provider=offline_provider(), name="Departures", prompt=PROMPT, expected_tools=["search_flights"]
        )
        scenario.tags.add(Tag.objects.get_or_create(name="departures")[0])
        log_in(page, live_server)

        page.goto(f"{live_server.url}/experiments/new/")
        page.get_by_label("Tag").select_option("departures")
        page.get_by_label("evalhub-offline").check()
        page.get_by_role("spinbutton", name="Trials").fill("5")
        editor = page.get_by_label("Variant of the tool surface (JSON)")
        surface = json.loads(editor.input_value())
        # The editor starts as the server's own surface.
        assert surface["tools"]["search_flights"]["description"].startswith("Find the direct flights")
        surface["name"] = "leave"
        surface["tools"]["search_flights"]["description"] = REWRITTEN
        editor.fill(json.dumps(surface, indent=2))
        page.get_by_role("button", name="Show what the variant changes").click()
        diff = page.locator("#variant-diff")
        expect(diff.locator("tr.diff-added")).to_contain_text(REWRITTEN)
        expect(diff.locator("tr.diff-removed").first).to_contain_text("Find the direct flights")
        expect(diff.locator("tr.diff-added")).to_have_count(1)
        diff.scroll_into_view_if_needed()
        shoot(page, "variant-form")

        page.get_by_role("button", name="Start experiment").click()
        expect(page.locator("#experiment-progress")).to_have_text("10 / 10 runs", timeout=240_000)
        cells = page.locator("#experiment-matrix td.cell .cell-count")
        expect(cells).to_have_text(["0/5", "5/5"])
        expect(page.locator("#experiment-matrix thead")).to_contain_text("evalhub-offline · leave")
        shoot(page, "variant-matrix")

        page.get_by_role("link", name="Variants and tools").click()
        expect(page.locator("#variant-summary-1")).to_contain_text("0 regressed, 1 fixed, 0 unchanged")
        row = page.locator("#variant-1 .compare-table tbody tr")
        expect(row).to_have_attribute("data-kind", "fixed")
        expect(row).to_contain_text("0/5 → 5/5 · p 0.008")
        served, variant = page.locator(".confusion-column").all()
        expect(served.locator("h3")).to_have_text("evalhub-offline")
        expect(served.locator('td[data-called="(not called)"] strong')).to_have_text("5")
        expect(variant.locator('td[data-expected="search_flights"][data-called="search_flights"] strong')).to_have_text(
            "5"
        )
        expect(page.locator('#tool-usage tr[data-tool="search_flights"]')).to_contain_text("never called 5")
        shoot(page, "variant-page")

        server.refresh_from_db()
        assert server.args == args_before  # the server was not touched
