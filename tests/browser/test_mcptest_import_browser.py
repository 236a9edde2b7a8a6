"""The Import page with an mcptest file: the report's counts (exact, approximated, refused) before applying."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from tests.browser.conftest import log_in, screenshot
from tests.evalhub.suites.test_mcptest import SUITE


@pytest.mark.django_db(transaction=True)
class McptestImportBrowserTests:
    def test_the_preview_counts_every_item(
        self, page: Page, live_server: LiveServer, alice: User, settings: Any
    ) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["*"]
        log_in(page, live_server)
        page.goto(f"{live_server.url}/scenarios/import/")
        page.get_by_label("mcptest v1 suite").check()
        page.locator("#suite-text").fill(SUITE.read_text())
        page.get_by_role("button", name="Preview plan").click()

        counts = page.locator("#import-counts")
        expect(counts).to_contain_text("21 exact")
        expect(counts).to_contain_text("5 approximated")
        expect(counts).to_contain_text("8 refused")
        screenshot(page, "mcptest-import-1280")
        page.set_viewport_size({"width": 800, "height": 800})
        screenshot(page, "mcptest-import-800")
