"""Read runs on the run page as a user would: a multi-step run with a failed call, run on a real worker with a
scripted model, and a hand-built record with a program, images and resources (conversations and code mode)."""

from __future__ import annotations

import json
import re
import subprocess
import threading

import pytest
from django.contrib.auth.models import User
from django.utils import timezone
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from runs.models import Run
from runs.services import run_start
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.browser.conftest import log_in, screenshot
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion
from tests.runs.inspector.records import HOSTILE, multi_step_fields


def tool_call(call_id: str, name: str, arguments: dict[str, object]) -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


@pytest.mark.browser
@pytest.mark.worker
class RunInspectorWorkerTests:
    def test_read_a_multi_step_run_with_a_failed_call(
        self,
        page: Page,
        live_server: LiveServer,
        alice: User,
        worker: subprocess.Popen[bytes],
        scripted: ScriptedServer,
    ) -> None:
        # Step 1 asks for an impossible latitude (the demo server's error) and a flight search; step 2 asks again
        # with good coordinates; step 3 answers. The first answer waits for the test: the run is under way.
        answering, thinking = threading.Event(), threading.Event()
        scripted.script(
            Answer(
                hold=answering,
                body=completion(
                    content="Let me check the weather and flights.",
                    tool_calls=[
                        tool_call("c1", "get_weather", {"latitude": 91, "longitude": 2.35}),
                        tool_call(
                            "c2", "search_flights", {"origin": "CDG", "destination": "JFK", "date": "2030-05-01"}
                        ),
                    ],
                ),
            ),
            Answer(
                hold=thinking,
                body=completion(
                    content=None, tool_calls=[tool_call("c3", "get_weather", {"latitude": 48.85, "longitude": 2.35})]
                ),
            ),
            Answer(body=completion(content="It is mild in Paris; two flights leave for New York.")),
        )
        provider = make_scripted_provider(
            scripted.base_url, price_overrides={"gpt-4o": {"input": "2.50", "output": "10"}}
        )
        scenario = make_scenario(make_demo_server(), provider=provider, name="Paris trip")
        Run.objects.create(scenario=scenario, model="gpt-4o", status="done", score=0.5, passed=False, verdict="fail")
        run = run_start(scenario=scenario, user=alice)

        # The scenario list keeps the previous score in view while the new run is under way (a second tab, left
        # open until the end: it updates without a reload).
        log_in(page, live_server)
        listing = page.context.new_page()
        listing.goto(f"{live_server.url}/scenarios/")
        last_score = listing.locator(f"#last-score-{scenario.pk}")
        expect(last_score.locator(".badge-fail")).to_have_text("fail 0.50")
        expect(last_score.locator(".badge-active")).to_be_visible()
        listing.evaluate("window.__notReloaded = true")

        # While the run goes on, its page refreshes itself; what the reader folded or unfolded stays so.
        answering.set()
        page.goto(f"{live_server.url}/runs/{run.pk}/")
        page.evaluate("window.__swaps = 0; document.body.addEventListener('htmx:afterSwap', () => window.__swaps++)")
        expect(page.locator("#call-2")).to_be_visible(timeout=30_000)
        expect(page.locator("#call-1")).to_have_attribute("open", "")
        page.locator("#call-1 > summary").click()
        page.locator("#call-2 > summary").click()
        page.wait_for_function("window.__swaps >= 2")
        expect(page.locator("#call-1")).not_to_have_attribute("open", "")
        expect(page.locator("#call-2")).to_have_attribute("open", "")
        thinking.set()
        expect(page.locator(".turn-final")).to_contain_text("two flights leave for New York", timeout=60_000)
        expect(page.locator("#call-2")).to_have_attribute("open", "")
        page.reload()  # what the reader chose holds for this tab's visit, as the failed call is open by default
        expect(page.locator("#call-1")).not_to_have_attribute("open", "")
        page.locator("#call-1 > summary").click()
        page.locator("#call-2 > summary").click()

        # The new run's verdict replaces the old one (a failed call fails the default scorer: runs.verdict).
        expect(last_score.locator(f'a[href="/runs/{run.pk}/"] .verdict-badge')).to_be_visible(timeout=30_000)
        expect(last_score.locator(".badge-active")).to_have_count(0)
        run.refresh_from_db()
        cause = f" · {run.failure_cause}" if run.failure_cause else ""
        expect(last_score.locator(".verdict-badge")).to_have_text(f"{run.verdict} {run.score:.2f}{cause}")
        assert listing.evaluate("window.__notReloaded") is True
        listing.close()

        steps = page.locator(".step")
        expect(steps).to_have_count(3)
        expect(steps.nth(0)).to_have_class("step step-error")
        failed = page.locator("#call-1")
        expect(failed).to_have_class("call call-error")
        # The failed call is open from the start: its arguments and its error read together.
        expect(failed.locator(".call-result")).not_to_contain_text("structuredContent")
        expect(failed.locator(".call-result")).to_contain_text("latitude must be between -90 and 90 (got 91)")

        page.get_by_role("link", name="Jump to first error").click()
        expect(page).to_have_url(f"{live_server.url}/runs/{run.pk}/#call-1")
        expect(failed).to_be_in_viewport()

        # The flight search answered structured content: a tree, shown once, with copy buttons.
        flights = page.locator("#call-2")
        flights.locator("summary").first.click()
        structured = flights.locator(".result-block", has_text="structuredContent")
        expect(structured.locator(".json-tree")).to_be_visible()
        expect(flights.locator(".result-label", has_text="structuredContent")).to_have_count(1)
        expect(structured.locator(".copy-button").first).to_be_visible()
        node = structured.locator(".json-node").nth(1)
        expect(node).to_have_attribute("open", "")
        node.locator("summary").first.click()
        expect(node).not_to_have_attribute("open", "")

        expect(page.locator(".turn-final")).to_have_count(1)
        expect(page.locator("#run-cost")).to_contain_text("agent")
        screenshot(page, "run-inspector-1280")
        page.set_viewport_size({"width": 800, "height": 900})
        screenshot(page, "run-inspector-800")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")

    @pytest.mark.parametrize("width", [1280, 800])
    def test_a_slow_tool_call_is_timed_as_it_runs_and_cancel_stops_it(
        self,
        page: Page,
        live_server: LiveServer,
        alice: User,
        worker: subprocess.Popen[bytes],
        scripted: ScriptedServer,
        width: int,
    ) -> None:
        # The issue: "10 ms in all so far" while a tool had run for 4 s, and Cancel waited 21 s for the call.
        scripted.script(Answer(body=completion(tool_calls=[tool_call("c1", "wait", {"seconds": 30})])))
        scenario = make_scenario(make_demo_server(), provider=make_scripted_provider(scripted.base_url))
        run = run_start(scenario=scenario, user=alice)
        page.set_viewport_size({"width": width, "height": 900})
        log_in(page, live_server)
        page.goto(f"{live_server.url}/runs/{run.pk}/")

        now = page.locator("#timeline-current")
        expect(now).to_contain_text("Now: tool call wait", timeout=30_000)
        # It counts on in the page, with nothing recorded meanwhile: 2 s of the tool's 30.
        expect(now.locator("strong")).to_have_text(re.compile(r"^([2-9]|\d\d)\.\d s$"), timeout=10_000)
        so_far = page.locator(".timeline-head [data-ticking-ms]")
        assert float(so_far.inner_text().split()[0]) >= float(now.locator("strong").inner_text().split()[0])
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        screenshot(page, f"run-slow-tool-{width}")

        page.get_by_role("button", name="Cancel run").click()
        expect(page.locator(".cancel-bar")).to_have_count(0, timeout=5_000)
        expect(page.locator("#call-1 .badge-warn")).to_have_text("cancelled")
        expect(page.locator("#timeline-current")).to_have_count(0)
        run.refresh_from_db()
        assert (run.status, run.all_tool_calls[0]["cancelled"]) == ("cancelled", True)
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        screenshot(page, f"run-cancelled-{width}")


@pytest.mark.browser
class RunInspectorRecordTests:
    def test_read_a_program_its_nested_calls_and_previews(
        self, page: Page, live_server: LiveServer, alice: User
    ) -> None:
        run = Run.objects.create(
            scenario=make_scenario(make_demo_server()),
            model="gpt-4o",
            status="done",
            score=1.0,
            passed=True,
            started_at=timezone.now(),
            **multi_step_fields(),
        )
        page.context.grant_permissions(["clipboard-read", "clipboard-write"])
        log_in(page, live_server)
        page.goto(f"{live_server.url}/runs/{run.pk}/")

        expect(page.locator(".turn-simulated")).to_contain_text("And flights?")
        program = page.locator("#call-3")
        program.locator("summary").first.click()
        expect(program.locator("pre.program")).to_contain_text("await tools.search_flights")
        expect(program.locator(".console")).to_contain_text(HOSTILE)
        nested = program.locator(".nested-calls > .call")
        expect(nested).to_have_count(2)
        expect(nested.nth(0).locator(".call-label")).to_have_text("call 3.1")

        nested.nth(0).locator("summary").first.click()
        show_all = nested.nth(0).get_by_text("show all 3,000 characters")
        show_all.click()
        expect(nested.nth(0).locator(".fold[open]")).to_have_count(1)

        nested.nth(1).locator("summary").first.click()
        expect(nested.nth(1).locator(".result-image img")).to_have_count(1)
        expect(nested.nth(1).locator(".result-resource").first).to_contain_text(HOSTILE)
        assert page.evaluate("window.pwned === undefined")

        copy = page.locator("#call-2 .copy-button").first
        page.locator("#call-2 summary").first.click()
        copy.click()
        expect(copy).to_have_text("Copied")
        assert json.loads(page.evaluate("navigator.clipboard.readText()")) == {"latitude": 48.85, "longitude": 2.35}
        screenshot(page, "run-inspector-program-1280")
        page.set_viewport_size({"width": 800, "height": 900})
        screenshot(page, "run-inspector-program-800")

    def test_a_run_that_never_reached_the_model_reads_as_its_error(
        self, page: Page, live_server: LiveServer, alice: User
    ) -> None:
        run = Run.objects.create(
            scenario=make_scenario(make_demo_server()),
            model="gpt-4o",
            status="error",
            passed=False,
            stop_reason="error",
            started_at=timezone.now(),
            duration_ms=1200,
            transcript={"prompt": "Weather in Paris?", "steps": []},
            error={"step": "connect", "kind": "command_not_found", "message": "No such command: mcp-weather."},
        )
        log_in(page, live_server)
        page.goto(f"{live_server.url}/runs/{run.pk}/")

        expect(page.locator("#run-cost")).to_have_text("no model call")
        page.get_by_role("link", name="Jump to the error").click()
        expect(page.locator("#run-error")).to_contain_text("No such command: mcp-weather.")
        expect(page.locator(".turn-user")).to_contain_text("Weather in Paris?")
        screenshot(page, "run-inspector-connect-error-1280")
