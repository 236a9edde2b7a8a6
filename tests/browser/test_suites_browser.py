"""Export the suite from the Scenarios page, edit a prompt in the file, import it, read the plan, apply it."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from evalhub.scenarios.models import Scenario
from tests.browser.conftest import log_in, screenshot
from tests.evalhub.suites.install import SECRET_VALUES, build_install


@pytest.mark.browser
class SuiteBrowserTests:
    def test_export_edit_import_shows_the_plan_then_applies(
        self, page: Page, live_server: LiveServer, alice: User, tmp_path: Path
    ) -> None:
        build_install(alice)
        log_in(page, live_server)
        page.goto(f"{live_server.url}/scenarios/")
        with page.expect_download() as download:
            page.get_by_role("link", name="Export").click()
        exported = tmp_path / "evals.yaml"
        download.value.save_as(exported)
        text = exported.read_text()
        assert "name: Weather in Paris" in text and not [v for v in SECRET_VALUES if v in text]
        exported.write_text(text.replace("prompt: Echo hello.", "prompt: Echo hello from the file."))

        page.get_by_role("link", name="Import").click()
        page.set_input_files("#suite-file", str(exported))
        page.get_by_role("button", name="Preview plan").click()
        expect(page.locator("#plan-summary")).to_have_text("Plan: 0 to create, 1 to change, 0 to delete.")
        expect(page.locator(".plan-changes")).to_have_text('prompt: "Echo hello." → "Echo hello from the file."')
        assert Scenario.objects.get(name="Remote echo").prompt == "Echo hello."
        screenshot(page, "suite-import-plan-1280")
        page.set_viewport_size({"width": 800, "height": 800})
        screenshot(page, "suite-import-plan-800")

        page.get_by_role("button", name="Apply this plan").click()
        expect(page).to_have_url(f"{live_server.url}/scenarios/")
        expect(page.get_by_text("Applied evals.yaml. Plan: 0 to create, 1 to change, 0 to delete.")).to_be_visible()
        assert Scenario.objects.get(name="Remote echo").prompt == "Echo hello from the file."
        screenshot(page, "suite-import-applied-800")
