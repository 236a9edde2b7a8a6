from __future__ import annotations

import json
import subprocess

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from evalhub.servers.services import server_inspect
from runs.models import Run
from runs.services import run_start
from scorers.contract import EXAMPLE_DESCRIPTION
from scorers.models import Scorer
from tests.base import make_demo_server, make_scenario, make_scripted_provider, wait_until
from tests.browser.conftest import log_in, screenshot
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion

CODE = """async ({ output }) => {
  const calls = output.allToolCalls.filter((tc) => tc.toolName === "get_weather");
  console.log("get_weather calls:", calls.length);
  return calls.length > 0 ? 1 : 0;
};"""


@pytest.mark.browser
@pytest.mark.worker
class ScorerBrowserTests:
    def test_write_test_attach_run_and_generate_scorers(
        self,
        page: Page,
        live_server: LiveServer,
        alice: User,
        worker: subprocess.Popen[bytes],
        scripted: ScriptedServer,
    ) -> None:
        server = make_demo_server()
        server_inspect(server=server)
        scenario = make_scenario(server)
        past = run_start(scenario=scenario, user=alice)
        wait_until(lambda: Run.objects.get(pk=past.pk).status == "done", timeout=60, what="the past run")
        judge_provider = make_scripted_provider(scripted.base_url)
        verdict = {"label": "GOOD", "reason": "The agent fetched the weather as asked."}
        scripted.script(Answer(body=completion(content=json.dumps(verdict))))
        log_in(page, live_server)

        # Write a code scorer and test it on the past run before saving.
        page.goto(f"{live_server.url}/scorers/new/")
        page.get_by_label("Name").fill("Weather called")
        page.locator("#id_code").fill(CODE)
        page.get_by_role("button", name="Test scorer").click()
        expect(page.locator("#test-result .badge-pass")).to_have_text("1.00")
        expect(page.locator("#test-result pre.console")).to_contain_text("get_weather calls: 1")
        screenshot(page, "scorer-test")
        page.get_by_role("button", name="Create scorer").click()
        expect(page.locator(".message-success")).to_contain_text("Created scorer")

        # An LLM judge with its own judge model.
        page.goto(f"{live_server.url}/scorers/new/")
        page.get_by_label("Name").fill("Helpful judge")
        page.get_by_label("LLM judge").check()
        page.get_by_label("System prompt").fill("Did the agent answer the user's question with the tool's data?")
        page.get_by_label("Labels").fill("GOOD|1\nBAD|0")
        page.get_by_label("Judge model").select_option(f"{judge_provider.pk}:gpt-4o")
        page.get_by_role("button", name="Create scorer").click()
        expect(page.locator(".message-success")).to_contain_text("Created scorer")

        # Attach both to the scenario and run it.
        page.goto(f"{live_server.url}/scenarios/{scenario.pk}/edit/")
        page.get_by_label("Weather called").check()
        page.get_by_label("Helpful judge").check()
        page.get_by_role("button", name="Save").click()
        page.get_by_role("button", name="Run", exact=True).click()
        expect(page.locator(".summary .badge-pass")).to_be_visible(timeout=30_000)
        scores = page.locator(".scorer")
        expect(scores.filter(has_text="Weather called")).to_contain_text("get_weather calls: 1")
        expect(scores.filter(has_text="Helpful judge")).to_contain_text("GOOD")
        expect(scores.filter(has_text="Helpful judge")).to_contain_text("The agent fetched the weather as asked.")
        screenshot(page, "run-with-scorers")

        # Generate a scorer from the reference description and save it.
        page.goto(f"{live_server.url}/scorers/new/")
        page.locator("#id_description_text").fill(EXAMPLE_DESCRIPTION)
        page.get_by_role("button", name="Generate code").click()
        expect(page.locator("#generated-code")).to_contain_text("latitude")
        page.get_by_role("button", name="Use this code").click()
        page.get_by_label("Name").fill("Generated weather check")
        screenshot(page, "scorer-generate")
        page.get_by_role("button", name="Create scorer").click()
        expect(page.locator(".message-success")).to_contain_text("Created scorer")
        generated = Scorer.objects.get(name="Generated weather check")
        assert "latitude" in generated.code and "-90" in generated.code
