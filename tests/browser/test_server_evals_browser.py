"""The demo server's shipped evals, from its page: inspect, see them, acknowledge side effects, import, run them."""

from __future__ import annotations

import json
import subprocess

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from evalhub.demo_server.evals import EVALS, PARIS_WEATHER_CONTENT
from evalhub.scenarios.models import Scenario
from evalhub.servers.services import server_inspect
from runs.models import Run
from tests.base import make_demo_server, wait_until
from tests.browser.conftest import log_in, screenshot


@pytest.mark.browser
@pytest.mark.worker
class ShippedEvalsBrowserTests:
    def test_import_the_demo_evals_and_run_every_level(
        self, page: Page, live_server: LiveServer, alice: User, worker: subprocess.Popen[bytes]
    ) -> None:
        server = make_demo_server(created_by=alice)
        log_in(page, live_server)
        page.goto(f"{live_server.url}/servers/{server.pk}/")
        page.get_by_role("button", name="Test connection / Inspect").click()

        section = page.locator("#shipped-evals")
        expect(section.locator("h2")).to_have_text(f"Evals shipped by this server ({len(EVALS)})", timeout=30_000)
        expect(section.locator("tbody tr")).to_have_count(len(EVALS))
        expect(section.locator("tbody .badge")).to_have_text([item["input"]["type"] for item in EVALS])
        page.locator("#shipped-evals").scroll_into_view_if_needed()
        screenshot(page, "shipped-evals-1280")

        section.get_by_role("button", name="I understand: allow execution evals on this server").click()
        expect(page.get_by_text("Execution-level evals may now call the tools")).to_be_visible()
        page.locator("#shipped-evals").get_by_role("button", name="Import all").click()
        expect(page.get_by_text(f"Shipped evals of “{server.name}”: {len(EVALS)} imported.")).to_be_visible()
        expect(page.locator("#shipped-evals tbody td:last-child a")).to_have_count(len(EVALS))
        page.set_viewport_size({"width": 800, "height": 900})
        page.locator("#shipped-evals").scroll_into_view_if_needed()
        screenshot(page, "shipped-evals-imported-800")

        page.goto(f"{live_server.url}/scenarios/")
        page.locator("select[name=tag]").select_option("server-evals")
        page.locator("#run-tag").click()
        runs = wait_until(
            lambda: (
                (done := list(Run.objects.filter(scenario__server=server, finished_at__isnull=False)))
                and len(done) == len(EVALS)
                and done
            ),
            timeout=120,
            what="every imported eval to finish its run",
        )
        by_eval = {run.scenario.shipped_eval_id: run for run in Run.objects.filter(pk__in=[r.pk for r in runs])}
        assert {key: run.status for key, run in by_eval.items()} == {item["id"]: "done" for item in EVALS}
        assert by_eval["weather-picks-get-weather"].passed is True
        assert by_eval["paris-weather-is-stable"].passed is True

        execution = by_eval["paris-weather-is-stable"]
        page.goto(f"{live_server.url}/runs/{execution.pk}/")
        expect(page.locator(".call-name")).to_have_text(["get_weather"])
        expect(page.get_by_text("none: an execution-level run calls the tool directly")).to_be_visible()
        screenshot(page, "execution-eval-run-800")
        assert Scenario.objects.filter(tags__name="execution").count() == 2

        invocation = by_eval["weather-picks-get-weather"]
        page.goto(f"{live_server.url}/runs/{invocation.pk}/")
        expect(page.locator(".call-name")).to_have_text(["get_weather"])
        expect(page.locator(".transcript")).to_contain_text("(not executed)")
        screenshot(page, "invocation-eval-run-800")
        page.goto(f"{live_server.url}/scenarios/{execution.scenario_id}/")
        expect(page.get_by_role("heading", name="Tool call execution")).to_be_visible()
        expect(page.get_by_text("Eval paris-weather-is-stable shipped by")).to_be_visible()


@pytest.mark.browser
class ToolTestBrowserTests:
    def test_call_a_tool_from_the_server_page_and_save_it_as_a_scenario(
        self, page: Page, live_server: LiveServer, alice: User
    ) -> None:
        server = make_demo_server(created_by=alice)
        server_inspect(server=server)
        log_in(page, live_server)
        page.goto(f"{live_server.url}/servers/{server.pk}/")

        tool = page.locator("#tool-get_weather")
        tool.get_by_text("Call it now").click()
        arguments = tool.locator("textarea[name=arguments]")
        assert json.loads(arguments.input_value()) == {"latitude": 0, "longitude": 0}
        arguments.fill('{"latitude": 49.01, "longitude": 2.55}')
        tool.get_by_role("button", name="Call get_weather").click()

        result = tool.locator(".tool-test-result")
        # The call starts the demo server over stdio: seconds on a loaded machine, past the default 5 s.
        expect(result.locator(".tool-test-verdict")).to_contain_text("answered", timeout=30_000)
        expect(result.locator(".tool-test-verdict")).to_contain_text("schema ok")
        expect(result).to_contain_text("light rain")
        tool.scroll_into_view_if_needed()
        screenshot(page, "tool-test-1280")

        arguments.fill("[1, 2]")
        tool.get_by_role("button", name="Call get_weather").click()
        expect(result).to_have_text('Arguments: the arguments must be a JSON object, e.g. {"latitude": 48.85}')
        arguments.fill('{"latitude": 49.01, "longitude": 2.55}')
        tool.get_by_role("button", name="Call get_weather").click()
        expect(result.locator(".tool-test-verdict")).to_contain_text("answered", timeout=30_000)

        result.locator("input[name=name]").fill("Paris weather stays the same")
        result.get_by_role("button", name="Save as scenario").click()
        expect(page.get_by_text("Saved “Paris weather stays the same”: it calls get_weather")).to_be_visible()
        saved = Scenario.objects.get(name="Paris weather stays the same")
        assert (saved.level, saved.tool_call) == (
            "execution",
            {"tool": "get_weather", "arguments": {"latitude": 49.01, "longitude": 2.55}},
        )
        assert saved.expectations[0]["equals"] == PARIS_WEATHER_CONTENT
