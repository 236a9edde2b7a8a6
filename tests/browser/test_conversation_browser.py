"""The demo conversation scenario run on a real worker and read in the browser: the agent asks, the simulated user
answers from `expected`, the agent books; each user turn is marked on the run page, at 1280 and 800 px."""

from __future__ import annotations

import subprocess

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from evalhub.demo import CONVERSATION_SCENARIO, seed_demo_scenarios, seed_demo_server
from evalhub.scenarios.models import Scenario
from tests.browser.conftest import log_in, screenshot


@pytest.mark.browser
@pytest.mark.worker
class ConversationBrowserTests:
    def test_the_demo_conversation_runs_and_shows_each_user_turn(
        self, page: Page, live_server: LiveServer, alice: User, worker: subprocess.Popen[bytes]
    ) -> None:
        seed_demo_server()
        seed_demo_scenarios()
        scenario = Scenario.objects.get(name=CONVERSATION_SCENARIO)
        log_in(page, live_server)

        page.goto(f"{live_server.url}/scenarios/{scenario.pk}/edit/")
        expect(page.get_by_label("Conversation")).to_contain_text('"goal_tool": "book_flight"')
        screenshot(page, "conversation-scenario-form")
        # Saving through the editor keeps the conversation and the expectations' turns.
        page.get_by_role("button", name="Save").click()
        expect(page.locator("h1")).to_have_text(CONVERSATION_SCENARIO)
        saved = Scenario.objects.get(pk=scenario.pk)
        assert (saved.conversation, [e.get("turn") for e in saved.expectations]) == (
            scenario.conversation,
            [0, 1, 1, None],
        )

        page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
        page.get_by_role("button", name="Run", exact=True).click()
        summary = page.locator(".summary")
        expect(summary).to_contain_text("Completed", timeout=30_000)
        expect(summary.locator(".badge-pass")).to_contain_text("pass")
        expect(page.locator(".scorer").filter(has_text="Expectations")).to_contain_text("1.00")

        turns = page.locator(".turn-user")
        expect(turns).to_have_count(2)
        expect(turns.nth(0)).to_contain_text("Book me a flight to Paris")
        expect(turns.nth(1).locator(".turn-role")).to_contain_text("turn 1 simulated")
        expect(turns.nth(1)).to_contain_text("origin: London; date: 2026-12-18; passengers: 2.")
        # The agent's question comes before the simulated answer, the booking after it.
        assistant = page.locator(".assistant-text").first
        expect(assistant).to_contain_text("To call book_flight I need: origin, date, passengers.")
        expect(page.locator(".call-name")).to_have_text(["book_flight"])
        expect(page.locator(".turn-final")).to_contain_text("booking_reference")
        expect(page.locator("#simulator-usage")).to_contain_text("Simulated user (not in the totals above): 1 call")
        parts = ".transcript .turn-user, .transcript .assistant-text, .transcript .call, .transcript .turn-final"
        order = page.evaluate(
            """(parts) => [...document.querySelectorAll(parts)].map(el =>
                 el.classList.contains('turn-user') ? 'user' : el.classList.contains('call') ? 'tool'
                 : el.classList.contains('turn-final') ? 'final' : 'assistant')""",
            parts,
        )
        assert order == ["user", "assistant", "user", "tool", "assistant", "final"]
        screenshot(page, "conversation-run-1280")

        page.set_viewport_size({"width": 800, "height": 800})
        expect(turns.nth(1)).to_be_visible()
        screenshot(page, "conversation-run-800")
        wide = page.evaluate(
            """() => [...document.querySelectorAll('.transcript *')]
                 .filter(el => el.getBoundingClientRect().right > 800).map(el => el.className)"""
        )
        assert wide == [], f"the transcript overflows at 800 px: {wide}"
