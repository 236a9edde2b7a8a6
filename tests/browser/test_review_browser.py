"""Reviewing by keyboard in blind mode: a queue of five runs, p / f to answer, n to move on; nothing automatic is
on the page before the answer. Screenshots at 1280 and 800 px (also copied to /work/notes/shots/review26/)."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from runs.models import Review, Run
from tests.browser.conftest import log_in, screenshot
from tests.runs.reviews.helpers import JUDGE_REASON, demo_scenario, judged_run

NOTES_SHOTS = Path("/work/notes/shots/review26")


def shot(page: Page, name: str) -> None:
    path = screenshot(page, name)
    if NOTES_SHOTS.parent.exists():
        NOTES_SHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, NOTES_SHOTS / path.name)


def five_runs() -> dict[int, str]:
    scenario = demo_scenario(name="Book a table for two", prompt="Book a table for two in Paris tonight.")
    answers = {}
    for n, passed in enumerate((True, False, True, True, False)):
        final = f"Booked table {n} at Chez Nous for 20:00." if passed else "I could not find a restaurant."
        run = judged_run(
            scenario,
            passed=passed,
            transcript={"prompt": scenario.prompt, "steps": [], "finalText": final},
            final_text=final,
        )
        answers[run.pk] = "pass" if passed else "fail"
    return answers


@pytest.mark.django_db(transaction=True)
class ReviewQueueBrowserTests:
    @pytest.mark.parametrize("width", [1280, 800])
    def test_five_runs_reviewed_by_keyboard_in_blind_mode(
        self, page: Page, live_server: LiveServer, bob: User, width: int
    ) -> None:
        answers = five_runs()
        page.set_viewport_size({"width": width, "height": 900})
        log_in(page, live_server, "bob")
        page.goto(f"{live_server.url}/runs/reviews/")
        expect(page.get_by_label("Blind")).to_be_checked()
        page.get_by_label("Runs", exact=True).fill("5")
        page.get_by_role("button", name="Start reviewing").click()
        started = time.monotonic()

        for position in range(1, 6):
            expect(page.locator("#review-progress")).to_have_text(f"{position} / 5")
            run_id = int(page.locator("h1").inner_text().split("run #")[1].split(" ")[0])
            html = page.content()
            assert JUDGE_REASON not in html and "Restraint judge" not in html, "blind mode shows nothing automatic"
            expect(page.locator("#verdict")).to_have_count(0)
            if position == 1:
                shot(page, f"review-blind-{width}")
            # The reviewer reads the final answer and answers: a failure is where no table was booked.
            verdict = "fail" if "could not find" in page.locator("#final-answer").inner_text() else "pass"
            page.keyboard.press(verdict[0])
            expect(page.locator("#review-reveal")).to_be_visible()
            expect(page.get_by_text(JUDGE_REASON).first).to_be_visible()
            if position == 1:
                shot(page, f"review-revealed-{width}")
            assert answers[run_id] == verdict
            page.keyboard.press("n")

        expect(page).to_have_url(f"{live_server.url}/runs/reviews/")
        # A figure for the notes (screenshots included), not an assertion: the machine is shared.
        print(f"\n{width} px: 5 runs reviewed by keyboard in {time.monotonic() - started:.1f} s")
        reviews = Review.objects.filter(reviewer=bob)
        assert reviews.count() == 5 and all(review.blind for review in reviews)
        assert {r.run_id: r.verdict for r in reviews} == answers
        assert dict(Run.objects.filter(pk__in=answers).values_list("pk", "human_verdict")) == answers
        shot(page, f"review-home-{width}")

    def test_the_run_page_reviews_by_keyboard_too(self, page: Page, live_server: LiveServer, bob: User) -> None:
        answers = five_runs()
        passed = max(pk for pk, verdict in answers.items() if verdict == "pass")
        log_in(page, live_server, "bob")
        page.goto(f"{live_server.url}/runs/{passed}/")
        page.get_by_label("Note").fill("asked nothing before booking")
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("f")
        expect(page.locator("#verdict-sentence")).to_contain_text(
            "Judged pass by Restraint judge; reviewed fail by bob: “asked nothing before booking”"
        )
        expect(page.locator("#human-verdict")).to_have_text("fail")
        expect(page.locator("#verdict .verdict-badge")).to_have_attribute("data-verdict", "fail")
        shot(page, "run-page-reviewed-1280")
        page.keyboard.press("n")
        expect(page).to_have_url(f"{live_server.url}/runs/{passed - 1}/#review")
