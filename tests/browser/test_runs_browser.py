from __future__ import annotations

import subprocess

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from runs.events.publish import runs_finished
from runs.models import Run
from runs.services import run_start
from tests.base import make_demo_server, make_scenario
from tests.browser.conftest import log_in, screenshot


@pytest.mark.browser
@pytest.mark.worker
class RunScenarioBrowserTests:
    def test_create_a_scenario_run_it_and_watch_it_finish_without_reloading(
        self, page: Page, live_server: LiveServer, alice: User, worker: subprocess.Popen[bytes]
    ) -> None:
        server = make_demo_server()
        log_in(page, live_server)

        page.goto(f"{live_server.url}/scenarios/")
        page.get_by_role("link", name="New scenario").click()
        page.get_by_label("Name").fill("Patience")
        page.get_by_label("Server").select_option(str(server.pk))
        # The offline agent picks the demo server's `wait` tool, so the run is visibly in progress for 2 s.
        page.get_by_label("Input prompt").fill("Please wait 2 seconds.")
        page.get_by_label("Expected tools").fill("wait")
        page.get_by_label("Tags").fill("slow")
        screenshot(page, "scenario-form")
        page.get_by_role("button", name="Create scenario").click()
        expect(page.locator("h1")).to_have_text("Patience")

        page.get_by_role("link", name="Scenarios", exact=True).click()
        page.get_by_label("Select Patience").check()
        page.get_by_role("button", name="Run selected").click()
        expect(page).to_have_url(f"{live_server.url}/runs/")
        page.evaluate("window.__notReloaded = true")
        row = page.locator("#runs-table tbody tr").first
        assert row.get_attribute("data-status") in ("queued", "running")
        screenshot(page, "runs-in-progress")

        expect(row).to_have_attribute("data-status", "done", timeout=30_000)
        expect(row.locator(".badge-pass")).to_have_text("pass 1.00")
        assert page.evaluate("window.__notReloaded") is True
        expect(page.locator("#quota-meter")).to_contain_text("1 / 100 runs today")
        screenshot(page, "runs-done")

        row.get_by_role("link").first.click()
        expect(page.locator(".turn-user")).to_contain_text("Please wait 2 seconds.")
        expect(page.locator(".call").first).to_contain_text("wait")
        expect(page.locator(".turn-final")).to_be_visible()
        page.locator(".call summary").first.click()
        expect(page.locator(".call-result").first).to_be_visible()
        screenshot(page, "run-detail")


@pytest.mark.browser
@pytest.mark.worker
class LiveRunPageTests:
    def test_the_run_page_shows_each_step_as_the_event_stream_announces_it(
        self, page: Page, live_server: LiveServer, alice: User, worker: subprocess.Popen[bytes]
    ) -> None:
        # The offline agent calls the demo server's `wait` tool: the run's first step is recorded 3 s before its end.
        scenario = make_scenario(make_demo_server(), name="Patience", prompt="Please wait 3 seconds.")
        log_in(page, live_server)
        streams: list[str] = []
        page.on("request", lambda request: streams.append(request.url) if "/api/v1/events" in request.url else None)
        run = run_start(scenario=scenario, user=alice)

        page.goto(f"{live_server.url}/runs/{run.pk}/")
        page.evaluate("window.__notReloaded = true")

        running = page.locator(".cancel-bar")
        expect(page.locator(".call").first).to_contain_text("wait", timeout=30_000)
        expect(running).to_contain_text("This run is running")  # the step arrived while the run went on
        screenshot(page, "run-live-step")
        expect(page.locator(".turn-final")).to_be_visible(timeout=30_000)
        expect(running).to_have_count(0)
        assert page.evaluate("window.__notReloaded") is True
        # (The Runs list the login lands on follows new runs with a stream of its own.)
        assert any(url.endswith(f"run={run.pk}") for url in streams)
        expect(page.locator("#run-body")).not_to_have_attribute("data-live-events", f"run={run.pk}")


@pytest.mark.browser
class LiveListsTests:
    def test_the_lists_show_a_run_started_elsewhere_and_its_end_without_reloading(
        self, page: Page, live_server: LiveServer, alice: User
    ) -> None:
        # Issue 25, minor 2: the lists followed only the runs under way when they loaded; none is, here.
        scenario = make_scenario(make_demo_server(), name="Elsewhere")
        other = make_scenario(scenario.server, name="Other")  # the Runs list shows "No runs yet"
        log_in(page, live_server)
        paths = {
            "runs": "/runs/",
            "scenarios": "/scenarios/",
            "scenario": f"/scenarios/{scenario.pk}/",
            "other": f"/runs/?scenario={other.pk}",
        }
        tabs = {name: page.context.new_page() for name in paths}
        for name, tab in tabs.items():
            # Each stream starts where it is answered: the run below must come after that.
            with tab.expect_response(lambda response: "/api/v1/events" in response.url):
                tab.goto(live_server.url + paths[name])
            tab.evaluate("window.__notReloaded = true")

        run = run_start(scenario=scenario, user=alice)  # as the CLI or the API would, with no worker to take it

        expect(tabs["runs"].locator(f"#run-{run.pk}")).to_have_attribute("data-status", "queued")
        expect(tabs["scenarios"].locator(f"#last-score-{scenario.pk} .badge-active")).to_contain_text("queued")
        expect(tabs["scenario"].locator("#scenario-runs")).to_contain_text(f"#{run.pk}")

        Run.objects.filter(pk=run.pk).update(status="done", score=1.0, passed=True, verdict="pass")
        runs_finished([run.pk])

        expect(tabs["runs"].locator(f"#run-{run.pk}")).to_have_attribute("data-status", "done")
        expect(tabs["scenarios"].locator(f"#last-score-{scenario.pk} .badge-pass")).to_have_text("pass 1.00")
        expect(tabs["scenario"].locator("#scenario-runs .badge-pass").first).to_have_text("pass 1.00")
        # The list of another scenario's runs was not sent this one.
        expect(tabs["other"].locator(f"#run-{run.pk}")).to_have_count(0)
        for tab in tabs.values():
            assert tab.evaluate("window.__notReloaded") is True
        screenshot(tabs["scenarios"], "scenarios-live")
