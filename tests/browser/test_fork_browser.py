"""Fork from here, as a user would: open the form under a step, change the system prompt, land on the fork."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from runs.models import Run
from tests.base import make_demo_server, make_scenario
from tests.browser.conftest import log_in, screenshot
from tests.runs.test_pipeline import execute


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
class ForkBrowserTests:
    def test_fork_from_a_step_with_another_system_prompt(
        self, page: Page, live_server: LiveServer, alice: User
    ) -> None:
        scenario = make_scenario(make_demo_server())
        # Playwright's event loop runs in this thread; the run's pipeline needs one of its own.
        with ThreadPoolExecutor(1) as pool:
            run = pool.submit(execute, scenario, alice).result(timeout=120)
        log_in(page, live_server)
        page.goto(f"{live_server.url}/runs/{run.pk}/")
        step = page.locator("section.step").nth(1)

        step.get_by_text("Fork from here").click()
        step.get_by_label("Change the system prompt").check()
        step.get_by_label("New system prompt").fill("Answer in one word.")
        step.get_by_role("button", name="Fork from step 2").click()

        fork = Run.objects.get(replay_of=run)
        expect(page).to_have_url(f"{live_server.url}/runs/{fork.pk}/")
        expect(page.locator("#replay-bar")).to_contain_text(f"Forked from run #{run.pk}")
        expect(page.locator("#replay-bar")).to_contain_text("replayed up to step 2")
        assert fork.settings["fork"] == {
            "at_step": 2,
            "change": {"kind": "system_prompt", "system_prompt": "Answer in one word."},
        }
        screenshot(page, "fork-queued")
