"""Verdicts in the browser: a run the server failed and an inconclusive run, on the run page and the Runs list, at
1280 and 800 px. Runs are stored as the worker leaves them (runs.run_verdict judges them), no worker needed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from evalhub.scenarios.models import Scenario
from runs.models import Run, ScoreResult
from runs.run_verdict import apply_verdict
from scorers.models import Scorer
from tests.base import make_demo_server, make_scenario
from tests.browser.conftest import log_in, screenshot
from tests.runs.inspector.records import call, text

WIDTHS = (1280, 800)


def server_failed_run(scenario: Scenario) -> Run:
    """Three get_weather calls the server answered with an error, and the expectations that failed because of it."""
    broken = {"content": [text("Upstream weather service unavailable (HTTP 503)")], "isError": True}
    calls = [call("get_weather", {"latitude": 48.85, "longitude": 2.35}, broken) for _ in range(3)]
    steps: list[dict[str, Any]] = [
        {
            "text": "",
            "finishReason": "tool_calls",
            "toolCalls": [{"toolName": c["toolName"], "args": c["args"]}],
            "toolResults": [{"toolName": c["toolName"], "result": c["result"]}],
        }
        for c in calls
    ]
    steps.append({"text": "Sorry, I could not get the weather for Paris.", "finishReason": "stop"})
    run = Run.objects.create(
        scenario=scenario,
        model="evalhub-offline",
        status="done",
        started_at=timezone.now(),
        settings={"prompt": scenario.prompt, "pass_threshold": 0.7},
        transcript={"prompt": scenario.prompt, "steps": steps, "finalText": steps[-1]["text"]},
        tool_calls=calls,
        all_tool_calls=calls,
        tool_names=["get_weather"] * 3,
        final_text=steps[-1]["text"],
        stop_reason="completed",
        duration_ms=900,
        score=0.4,
    )
    results = [
        ScoreResult.objects.create(
            run=run,
            scorer_name="Expectations",
            scorer_kind="expectations",
            score=0.0,
            passed=False,
            reason="Failed: get_weather returned a result with temperature_c",
        ),
        ScoreResult.objects.create(
            run=run, scorer_name="Polite", scorer_kind="code", score=0.8, passed=True, gating=False, threshold=0.7
        ),
    ]
    apply_verdict(run, results)
    run.save()
    return run


def outage_run(scenario: Scenario) -> Run:
    run = Run.objects.create(
        scenario=scenario,
        model="gpt-4o",
        status="error",
        started_at=timezone.now(),
        settings={"prompt": scenario.prompt, "pass_threshold": 0.7},
        transcript={"prompt": scenario.prompt, "steps": []},
        error={"step": "model call 1", "kind": "rate_limited", "message": "429 Too Many Requests after 4 attempts"},
        duration_ms=7000,
    )
    apply_verdict(run)
    run.save()
    return run


@pytest.mark.browser
class VerdictBrowserTests:
    def test_a_server_failure_and_an_outage_read_as_such_on_the_run_page_and_the_runs_list(
        self, page: Page, live_server: LiveServer, alice: User
    ) -> None:
        scenario = make_scenario(make_demo_server())
        failed = server_failed_run(scenario)
        outage = outage_run(scenario)
        assert (failed.verdict, failed.failure_cause) == ("fail", "server")
        assert (outage.verdict, outage.failure_cause) == ("inconclusive", "provider")
        log_in(page, live_server)

        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 800})

            page.goto(f"{live_server.url}/runs/{failed.pk}/")
            card = page.locator("#verdict")
            expect(card.locator(".verdict-badge")).to_have_text("fail 0.40 · server")
            expect(card.locator(".verdict-reason")).to_have_text(
                "server: get_weather returned an error on 3 of 3 calls"
            )
            failed_stage = card.locator(".stage-failed")
            expect(failed_stage).to_contain_text("result returned")
            expect(failed_stage).to_have_attribute("aria-current", "step")
            detail = card.locator("details.stage-detail")
            expect(detail).to_have_attribute("open", "")
            expect(detail.get_by_role("link", name="the first failed call")).to_be_visible()
            expect(page.locator('[data-gate="advisory"]')).to_have_text("advisory")
            assert_fits(page, f"run {failed.pk}", width)
            screenshot(page, f"verdict-run-server-{width}")

            page.goto(f"{live_server.url}/runs/{outage.pk}/")
            badge = page.locator("#verdict .verdict-badge")
            expect(badge).to_have_text("inconclusive · provider")
            expect(badge).to_have_attribute("title", "provider: 429 Too Many Requests after 4 attempts")
            # Amber, never the red of a failure.
            assert badge.evaluate("el => getComputedStyle(el).color") == "rgb(161, 92, 7)"
            expect(page.locator("#verdict .stage-undecided")).to_contain_text("tool chosen")
            assert_fits(page, f"run {outage.pk}", width)
            screenshot(page, f"verdict-run-inconclusive-{width}")

            page.goto(f"{live_server.url}/runs/")
            expect(page.locator(f"#run-{failed.pk} .verdict-badge")).to_have_text("fail 0.40 · server")
            expect(page.locator(f"#run-{outage.pk} .verdict-badge")).to_have_text("inconclusive · provider")
            assert_fits(page, "/runs/", width)
            screenshot(page, f"verdict-runs-list-{width}")

        page.set_viewport_size({"width": 1280, "height": 800})
        page.get_by_label("Verdict").select_option("inconclusive")
        page.get_by_role("button", name="Filter").click()
        expect(page.locator("#runs-table tbody tr")).to_have_count(1)
        expect(page.locator(f"#run-{outage.pk}")).to_be_visible()
        page.get_by_label("Verdict").select_option("")
        page.get_by_label("Failure cause").select_option("server")
        page.get_by_role("button", name="Filter").click()
        expect(page.locator("#runs-table tbody tr")).to_have_count(1)
        expect(page.locator(f"#run-{failed.pk}")).to_be_visible()

        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 800})
            page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
            expect(page.locator("#grading")).to_contain_text("Default scorer")
            expect(page.locator(".chart-inconclusive")).to_have_count(1)
            assert_fits(page, "scenario page", width)
            screenshot(page, f"verdict-scenario-{width}")

    def test_the_scenario_page_says_how_it_is_graded(self, page: Page, live_server: LiveServer, alice: User) -> None:
        scenario = make_scenario(
            make_demo_server(),
            name="Graded",
            expectations=[
                {"kind": "tool_called", "tool": "get_weather", "args": {"latitude": {"between": [-90, 90]}}},
                {"kind": "tool_not_called", "tool": "book_flight", "description": "Never books without asking"},
                {"kind": "final_answer", "contains": "Paris", "required": False, "weight": 2},
            ],
        )
        Scorer.objects.create(name="Coordinates valid", code="async () => 1").scenarios.add(
            scenario, through_defaults={"threshold": 0.9}
        )
        Scorer.objects.create(name="Polite", kind="judge").scenarios.add(scenario, through_defaults={"advisory": True})
        log_in(page, live_server)

        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 800})
            page.goto(f"{live_server.url}/scenarios/{scenario.pk}/")
            grading = page.locator("#grading")
            expect(grading.locator("#grading-expectations tbody tr")).to_have_count(3)
            expect(grading.locator("#grading-scorers li")).to_have_count(2)
            expect(grading).to_contain_text("gating at 0.9")
            expect(grading).to_contain_text("advisory")
            assert_fits(page, "scenario page", width)
            screenshot(page, f"verdict-scenario-grading-{width}")


def assert_fits(page: Page, what: str, width: int) -> None:
    overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"{what} scrolls sideways by {overflow} px at {width} px"


def line_count(page: Page, selector: str) -> int:
    """How many lines the element's text takes: the distinct tops of its text's boxes (one box per line)."""
    return int(
        page.locator(selector).evaluate(
            """el => {
                const tops = new Set(), walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
                for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                    const range = document.createRange();
                    range.selectNodeContents(node);
                    for (const rect of range.getClientRects()) if (rect.width) tops.add(Math.round(rect.top / 4));
                }
                return tops.size;
            }"""
        )
    )


@pytest.mark.browser
class VerdictBadgeWidthTests:
    def test_a_badges_verdict_and_score_stay_on_one_line_in_the_lists(
        self, page: Page, live_server: LiveServer, alice: User
    ) -> None:
        # The issue: at 800 px "pass 1.00" took two lines in the Scenarios list's Last verdict column, since the
        # Runs list let badges wrap anywhere to fit.
        server = make_demo_server()
        passing = make_scenario(server, name="weather_in_paris_code_mode_regression_check_of_the_nightly_suite")
        passed = Run.objects.create(
            scenario=passing,
            model="evalhub-offline",
            status="done",
            started_at=timezone.now() - timedelta(minutes=33),
            score=1.0,
            tool_names=["run_code", "get_weather"],
            duration_ms=3600,
        )
        ScoreResult.objects.create(run=passed, scorer_name="Default", scorer_kind="default", score=1.0, passed=True)
        apply_verdict(passed, list(passed.score_results.all()))
        passed.save()
        failed = server_failed_run(make_scenario(server, name="Conversation: book a flight to Paris"))
        assert (passed.verdict, failed.failure_cause) == ("pass", "server")
        log_in(page, live_server)

        for width in WIDTHS:
            page.set_viewport_size({"width": width, "height": 800})
            page.goto(f"{live_server.url}/scenarios/")
            expect(page.locator(f"#last-score-{passing.pk} .verdict-badge")).to_have_text("pass 1.00")
            assert line_count(page, f"#last-score-{passing.pk} .verdict-badge") == 1
            assert_fits(page, "/scenarios/", width)
            screenshot(page, f"verdict-scenarios-list-{width}")

            page.goto(f"{live_server.url}/runs/")
            expect(page.locator(f"#run-{failed.pk} .verdict-badge")).to_have_text("fail 0.40 · server")
            assert line_count(page, f"#run-{passed.pk} .verdict-badge") == 1
            # The cause may go to a second line; the verdict and its score never part.
            assert line_count(page, f"#run-{failed.pk} .verdict-badge .verdict-main") == 1
            assert_fits(page, "/runs/", width)
            screenshot(page, f"verdict-runs-list-badges-{width}")
