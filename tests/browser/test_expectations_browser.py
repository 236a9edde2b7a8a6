"""Build three expectations in the scenario form's editor, run the scenario on the demo server with the offline
model and a real worker, and read the checklist and its diff on the run page."""

from __future__ import annotations

import json
import subprocess

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Locator, Page, expect
from pytest_django.live_server_helper import LiveServer

from evalhub.scenarios.models import Scenario
from tests.base import make_demo_server
from tests.browser.conftest import SCREENSHOTS, log_in, screenshot


def add_row(page: Page, kind: str) -> Locator:
    page.get_by_role("button", name="Add expectation").click()
    row = page.locator(".expectation-row").last
    row.locator("select").first.select_option(kind)
    return page.locator(".expectation-row").last  # choosing a kind draws the row again


def add_argument(row: Locator, name: str, low: str, high: str) -> None:
    row.get_by_role("button", name="Add argument").click()
    line = row.locator(".arg-line").last
    line.get_by_label("Argument name").fill(name)
    line.locator("select").select_option("$range")
    expect(line.locator(".arg-help")).to_have_text("A number in [min, max], both ends included.")
    line.get_by_label("Minimum").fill(low)
    line.get_by_label("Maximum").fill(high)


@pytest.mark.browser
@pytest.mark.worker
class ExpectationsBrowserTests:
    def test_build_three_expectations_run_them_and_read_the_checklist(
        self, page: Page, live_server: LiveServer, alice: User, worker: subprocess.Popen[bytes]
    ) -> None:
        server = make_demo_server()
        log_in(page, live_server)
        page.goto(f"{live_server.url}/scenarios/new/")
        page.get_by_label("Name").fill("Weather checks")
        page.get_by_label("Server").select_option(str(server.pk))
        # Latitude 91 is out of range: the offline agent passes it on, so there is a diff to read.
        page.get_by_label("Input prompt").fill("What's the weather at latitude 91, longitude 2.35?")

        # A row just added says nothing is missing until it is filled in; then the server's check speaks.
        with page.expect_response(lambda response: "/scenarios/expectations/check/" in response.url):
            weather = add_row(page, "tool_called")
        expect(weather.locator(".row-errors")).to_be_hidden()
        weather.get_by_label("tool of expectation 1").fill("get")
        weather.get_by_label("tool of expectation 1").fill("")
        expect(weather.locator(".row-errors")).to_have_text("tool: required for tool_called")
        weather.get_by_label("tool of expectation 1").fill("get_weather")
        add_argument(weather, "latitude", "-90", "90")
        add_argument(weather, "longitude", "-180", "180")
        expect(weather.locator("[data-sentence]")).to_have_text(
            "get_weather called with latitude in [-90, 90], longitude in [-180, 180]"
        )
        expect(weather.locator(".row-errors")).to_be_hidden()

        booking = add_row(page, "tool_not_called")
        expect(booking.locator(".help").first).to_have_text("A tool (or any of several tools) was not called.")
        booking.get_by_label("tool of expectation 2").fill("book_flight")
        expect(booking.locator("[data-sentence]")).to_have_text("book_flight not called")

        answer = add_row(page, "final_answer")
        answer.get_by_label("Check of expectation 3").select_option("icontains")
        answer = page.locator(".expectation-row").last
        answer.get_by_label("icontains of expectation 3").fill("Paris")
        expect(answer.locator("[data-sentence]")).to_have_text('final answer contains "Paris" in any case')
        screenshot(page, "expectations-editor")
        page.set_viewport_size({"width": 800, "height": 800})
        screenshot(page, "expectations-editor-800")
        page.set_viewport_size({"width": 1280, "height": 800})

        page.get_by_role("button", name="Create scenario").click()
        expect(page.locator("h1")).to_have_text("Weather checks")
        assert Scenario.objects.get(name="Weather checks").expectations == [
            {
                "kind": "tool_called",
                "tool": "get_weather",
                "args": {"latitude": {"$range": [-90, 90]}, "longitude": {"$range": [-180, 180]}},
            },
            {"kind": "tool_not_called", "tool": "book_flight"},
            {"kind": "final_answer", "icontains": "Paris"},
        ]

        page.get_by_role("button", name="Run", exact=True).click()
        checklist = page.locator(".checklist")
        expect(checklist).to_be_visible(timeout=30_000)
        checks = checklist.locator(".check")
        expect(checks).to_have_count(3)
        expect(checks.nth(0)).to_have_class("check check-fail")
        expect(checks.nth(0).locator(".check-facts")).to_contain_text(
            "the checked call (call 1) had 1 mismatched argument"
        )
        expect(checks.nth(0).locator(".diff-entry")).to_have_text(
            "argument mismatch latitude: expected number in [-90, 90], got 91 call 1"
        )
        expect(checks.nth(1)).to_have_class("check check-pass")
        expect(checks.nth(2).locator(".diff-entry")).to_have_text(
            'answer mismatch answer does not contain "Paris" in any case'
        )
        expect(page.locator(".scorer").first).to_contain_text("1/3 expectations passed")
        screenshot(page, "expectations-checklist")
        page.set_viewport_size({"width": 800, "height": 800})
        screenshot(page, "expectations-checklist-800")

        # The diff's call link leads to that call in the tool calls table.
        checks.nth(0).get_by_role("link", name="call 1").click()
        expect(page).to_have_url(f"{live_server.url}/runs/{Scenario.objects.get().runs.get().pk}/#call-1")
        expect(page.locator("#call-1")).to_contain_text("latitude must be between -90 and 90 (got 91)")

        page.set_viewport_size({"width": 1280, "height": 800})
        page.get_by_role("link", name="Save as expectations").click()
        expect(page.locator(".proposal").first).to_contain_text(
            "get_weather called with latitude = 91, longitude = 2.35"
        )
        screenshot(page, "save-as-expectations")


@pytest.mark.browser
class ExpectationsEditorBrowserTests:
    def test_an_unknown_kind_is_shown_as_it_is_not_as_another(
        self, page: Page, live_server: LiveServer, alice: User
    ) -> None:
        make_demo_server()
        log_in(page, live_server)
        page.goto(f"{live_server.url}/scenarios/new/")
        page.locator("#expectations-editor [data-raw]").evaluate("(details) => { details.open = true; }")
        raw = page.locator("#expectations-editor textarea")

        raw.fill('[{"kind": "tool_caled", "tool": "get_weather"}]')
        raw.dispatch_event("change")

        kind = page.get_by_label("Kind of expectation 1")
        expect(kind.locator("option:checked")).to_have_text("tool_caled (unknown)")
        row = page.locator(".expectation-row")
        # None of another kind's fields, as if they applied; the server's check names the place and the fix.
        expect(row.locator(".row-fields .row-field")).to_have_count(0)
        expect(row.locator(".help-warning")).to_contain_text("Unknown kind “tool_caled”")
        errors = row.locator(".row-errors")
        expect(errors).to_contain_text('kind: unknown kind "tool_caled"; did you mean "tool_called"?')

    @pytest.mark.parametrize("width", [1280, 800])
    def test_an_unknown_matcher_is_shown_as_it_is_and_kept(
        self, page: Page, live_server: LiveServer, alice: User, width: int
    ) -> None:
        # The issue: {"$rnage": …} showed as "equals" in the dropdown; saved as shown, it changed what is checked.
        make_demo_server()
        page.set_viewport_size({"width": width, "height": 900})
        log_in(page, live_server)
        page.goto(f"{live_server.url}/scenarios/new/")
        page.locator("#expectations-editor [data-raw]").evaluate("(details) => { details.open = true; }")
        raw = page.locator("#expectations-editor textarea")
        typed = '[{"kind": "tool_called", "tool": "get_weather", "args": {"latitude": {"$rnage": [40, 50]}}}]'

        raw.fill(typed)
        raw.blur()  # as a user leaves the field: its change event draws the rows

        line = page.locator(".arg-line")
        matcher = line.get_by_label("Matcher for latitude")
        expect(matcher.locator("option:checked")).to_have_text("$rnage (unknown)")
        expect(line.locator(".arg-help")).to_contain_text("Unknown matcher “$rnage”")
        expect(page.locator(".row-errors")).to_have_text(
            'args.latitude: unknown matcher "$rnage"; did you mean "$range"?'
        )
        # Touching the row keeps the matcher as it was typed.
        line.get_by_label("$rnage value").fill("[41, 50]")
        assert json.loads(raw.input_value())[0]["args"] == {"latitude": {"$rnage": [41, 50]}}
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        screenshot(page, f"expectations-unknown-matcher-{width}")


@pytest.mark.browser
class ComposeMatchersBrowserTests:
    def test_pick_edit_and_nest_matchers_with_their_descriptions(
        self, page: Page, live_server: LiveServer, alice: User
    ) -> None:
        make_demo_server()
        log_in(page, live_server)
        page.goto(f"{live_server.url}/scenarios/new/")
        raw = page.locator("#expectations-editor textarea")

        # An argument that must not be in the polar circles: $not around a $range.
        weather = add_row(page, "tool_called")
        weather.get_by_label("tool of expectation 1").fill("get_weather")
        weather.get_by_role("button", name="Add argument").click()
        line = weather.locator(".arg-line").last
        line.get_by_label("Argument name").fill("latitude")
        line.locator("select").first.select_option("$not")
        expect(line.locator(".arg-help").first).to_have_text(
            "The value does not match this expected value (a matcher or a literal)."
        )
        line.get_by_label("Matcher for not this argument").select_option("$range")
        line.get_by_label("Minimum").fill("66.5")
        line.get_by_label("Maximum").fill("90")
        expect(weather.locator("[data-sentence]")).to_have_text("get_weather called with latitude not in [66.5, 90]")

        # The answer: all of (any of two words) and not an apology, nested two deep.
        answer = add_row(page, "final_answer")
        answer.get_by_label("Check of expectation 2").select_option("matches")
        answer = page.locator(".expectation-row").last
        answer.get_by_label("Matcher for matches of expectation 2", exact=True).select_option("$allOf")
        first = answer.get_by_label("Matcher for allOf matches of expectation 2 operand 1", exact=True)
        first.select_option("$anyOf")
        answer.get_by_label("Matcher for anyOf allOf matches of expectation 2 operand 1 operand 1").select_option(
            "$icontains"
        )
        answer.get_by_label("$icontains value").first.fill("sunny")
        answer.get_by_role("button", name="Add operand").first.click()
        answer.get_by_label("Matcher for anyOf allOf matches of expectation 2 operand 1 operand 2").select_option(
            "$levenshtein"
        )
        expect(answer.locator(".arg-help", has_text="edits (insertions")).to_have_count(1)
        answer.get_by_label("Reference text").fill("It is cloudy")
        answer.get_by_label("Most edits").fill("2")
        answer.get_by_role("button", name="Add operand").last.click()
        second = answer.get_by_label("Matcher for allOf matches of expectation 2 operand 2", exact=True)
        second.select_option("$not")
        answer.get_by_label("Matcher for not allOf matches of expectation 2 operand 2").select_option("$contains")
        answer.get_by_label("$contains value").fill("sorry")

        names = add_row(page, "tool_names")
        names.get_by_label("Matcher for matches of expectation 3").select_option("$containsAll")
        names.get_by_label("Every one of, comma-separated").fill("get_weather, search_flights")

        expect(page.locator(".row-errors:visible")).to_have_count(0)
        expect(page.locator("[data-sentence]").nth(2)).to_have_text(
            'tool names containing all of ["get_weather", "search_flights"]'
        )
        assert json.loads(raw.input_value()) == [
            {"kind": "tool_called", "tool": "get_weather", "args": {"latitude": {"$not": {"$range": [66.5, 90]}}}},
            {
                "kind": "final_answer",
                "matches": {
                    "$allOf": [
                        {
                            "$anyOf": [
                                {"$icontains": "sunny"},
                                {"$levenshtein": {"value": "It is cloudy", "max": 2}},
                            ]
                        },
                        {"$not": {"$contains": "sorry"}},
                    ]
                },
            },
            {"kind": "tool_names", "matches": {"$containsAll": ["get_weather", "search_flights"]}},
        ]
        editor = page.locator("#expectations-editor")
        editor.screenshot(path=str(SCREENSHOTS / "expectations-compose-1280.png"))
        page.set_viewport_size({"width": 800, "height": 900})
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        editor.screenshot(path=str(SCREENSHOTS / "expectations-compose-800.png"))
