from __future__ import annotations

import json
import re
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
from scorers.services import scorer_save
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
        fill_code(page, CODE)
        page.get_by_role("button", name="Test scorer").click()
        expect(page.locator("#test-result .badge-pass")).to_have_text("1.00")
        expect(page.locator("#test-result pre.console")).to_contain_text("get_weather calls: 1")
        screenshots(page, "scorer-test")
        page.get_by_role("button", name="Create scorer").click()
        expect(page.locator(".message-success")).to_contain_text("Created scorer")

        # On the saved scorer's page, Test scorer tests the edited, unsaved code (it used to fail on the name).
        fill_code(page, "async () => 0.25")
        page.get_by_role("button", name="Test scorer").click()
        expect(page.locator("#test-result .badge-fail")).to_have_text("0.25")
        expect(page.locator("#test-result .form-error")).to_have_count(0)
        saved = Scorer.objects.get(name="Weather called")
        assert (saved.version, "0.25" in saved.code) == (1, False)  # testing saved nothing

        # An LLM judge with its own judge model.
        page.goto(f"{live_server.url}/scorers/new/")
        page.get_by_label("Name").fill("Helpful judge")
        page.get_by_label("LLM judge").check()
        page.get_by_label("System prompt").fill("Did the agent answer the user's question with the tool's data?")
        page.get_by_label("Labels").fill("GOOD|1\nBAD|0")
        page.get_by_label("Judge model").select_option(f"{judge_provider.pk}:gpt-4o")
        page.get_by_role("button", name="Create scorer").click()
        expect(page.locator(".message-success")).to_contain_text("Created scorer")

        # Run selected waits for a selection, and says so.
        page.goto(f"{live_server.url}/scenarios/")
        expect(page.get_by_role("button", name="Run selected")).to_be_disabled()
        expect(page.locator("#run-reason")).to_have_text("Select scenarios, or choose a tag, to run them.")
        page.get_by_label(f"Select {scenario.name}").check()
        expect(page.get_by_role("button", name="Run selected")).to_be_enabled()
        expect(page.locator("#run-reason")).to_be_hidden()

        # Attach both to the scenario and run it.
        page.goto(f"{live_server.url}/scenarios/{scenario.pk}/edit/")
        page.locator("#id_scorers").get_by_label("Weather called", exact=True).check()
        # A judge's picker label carries its calibration: a new judge has no reviewed runs yet.
        page.locator("#id_scorers").get_by_label(
            "Helpful judge (uncalibrated · 0 of 20 reviewed runs)", exact=True
        ).check()
        page.get_by_role("button", name="Save").click()
        page.get_by_role("button", name="Run", exact=True).click()
        expect(page.locator(".summary .badge-pass")).to_be_visible(timeout=30_000)
        scores = page.locator(".scorer")
        expect(scores.filter(has_text="Weather called")).to_contain_text("get_weather calls: 1")
        expect(scores.filter(has_text="Helpful judge")).to_contain_text("GOOD")
        expect(scores.filter(has_text="Helpful judge")).to_contain_text("The agent fetched the weather as asked.")
        screenshots(page, "run-with-scorers")

        # Re-score after the judge was edited: its new version is asked (an unchanged judge would answer from its
        # kept verdict, scorers.judge_cache); the page shows the new verdicts by itself, then stops polling.
        judge = Scorer.objects.get(name="Helpful judge")
        judge.system_prompt += " Be strict."
        scorer_save(scorer=judge, user=alice)
        scripted.script(Answer(body=completion(content=json.dumps({"label": "BAD", "reason": "Second look."}))))
        page.get_by_role("button", name="Re-score").click()
        expect(page.locator("#scores-current .scorer").filter(has_text="Helpful judge")).to_contain_text(
            "Second look.", timeout=30_000
        )
        expect(page.locator("#scores-earlier .scorer-old")).to_have_count(2)
        expect(page.locator("#rescoring")).to_have_count(0)
        expect(page.get_by_text("Re-scoring")).to_have_count(0)  # no banner left saying it is still going
        expect(page.locator("#run-body")).not_to_have_attribute("data-live-events", re.compile("run="))
        expect(page.get_by_role("button", name="Re-score")).to_be_enabled()
        screenshots(page, "run-rescored")

        # Generate a scorer from the reference description with the wand: the code goes into the editor, with Undo.
        page.goto(f"{live_server.url}/scorers/new/")
        editor = page.locator("#id_code")
        expect(editor).to_have_value("")
        fill_code(page, "async () => 0.5")
        page.get_by_role("button", name="Generate code from a description").click()
        page.get_by_label("Criteria").fill(EXAMPLE_DESCRIPTION)
        page.get_by_role("button", name="Generate code", exact=True).click()
        expect(page.locator("#generate-result")).to_contain_text("The generated code is now in the editor.")
        expect(editor).to_have_value(re.compile(r"latitude[\s\S]*-90"))
        screenshots(page, "scorer-generate")
        page.get_by_role("button", name="Undo: restore the previous code").click()
        expect(editor).to_have_value("async () => 0.5")
        expect(page.locator("#generate-result")).to_contain_text("Your previous code is back in the editor")
        page.get_by_role("button", name="Use the generated code").click()
        page.get_by_role("button", name="Test scorer").click()
        expect(page.locator("#test-result .badge-pass")).to_have_text("1.00")
        page.get_by_label("Name").fill("Generated weather check")
        page.get_by_role("button", name="Create scorer").click()
        expect(page.locator(".message-success")).to_contain_text("Created scorer")
        generated = Scorer.objects.get(name="Generated weather check")
        assert "latitude" in generated.code and "-90" in generated.code

        # Saving a new scorer without code says what to do.
        page.goto(f"{live_server.url}/scorers/new/")
        page.get_by_label("Name").fill("Empty")
        page.get_by_role("button", name="Create scorer").click()
        expect(page.locator(".field-error")).to_have_text(
            "The code is empty: write the scorer function, or press the wand at the top right of the code field to "
            "generate it from a description."
        )
        screenshots(page, "scorer-empty")


def fill_code(page: Page, code: str) -> None:
    """Replace the code in the editor as a person would: click into it, select all, then type (as text input)."""
    page.locator(".code-box .CodeMirror").click()
    page.keyboard.press("Control+A")
    page.keyboard.insert_text(code)
    expect(page.locator("#id_code")).to_have_value(code)  # the form's field follows the editor


def screenshots(page: Page, name: str) -> None:
    """At 1280 px (the test's window) and at 800 px, where the sidebar collapses."""
    screenshot(page, f"{name}-1280")
    page.set_viewport_size({"width": 800, "height": 800})
    screenshot(page, f"{name}-800")
    page.set_viewport_size({"width": 1280, "height": 800})


@pytest.mark.browser
class ScorerPageBrowserTests:
    def test_the_editor_marks_the_error_line_and_the_page_attaches_compares_and_restores(
        self, page: Page, live_server: LiveServer, alice: User
    ) -> None:
        scenario = make_scenario(make_demo_server(), created_by=alice)
        log_in(page, live_server)

        # A real editor: line numbers, and a syntax error's line marked with its frame kept as written.
        page.goto(f"{live_server.url}/scorers/new/")
        page.get_by_label("Name").fill("Strict")
        # A long line wraps before the wand in the editor's corner instead of running under it.
        fill_code(page, "async () => { " + "const x = 1; " * 30 + "}")
        text_right = page.evaluate(
            "() => { const range = document.createRange();"
            " range.selectNodeContents(document.querySelector('.code-box .CodeMirror-line > span'));"
            " return Math.max(...[...range.getClientRects()].map((box) => box.right)); }"
        )
        wand = page.locator(".wand").bounding_box()
        assert wand is not None and text_right <= wand["x"]
        fill_code(page, "async () => {\n  return 1 +;\n}")
        expect(page.locator(".code-box .CodeMirror-linenumber").filter(has_text="3")).to_be_visible()
        # Test marks a syntax error's line too, before any save (and before there is a run to test on).
        page.get_by_role("button", name="Test scorer").click()
        expect(page.locator("#test-result .form-error")).to_contain_text("Syntax error at line 2, column 13")
        expect(page.locator(".code-box .cm-error-line")).to_have_count(1)
        page.get_by_role("button", name="Create scorer").click()
        error = page.locator(".code-field .field-error")
        expect(error).to_contain_text("Syntax error at line 2, column 13")
        assert "\n2 |   return 1 +;\n" in error.inner_text()  # the caret line stays under the column
        expect(page.locator(".code-box .cm-error-line")).to_have_count(1)
        expect(page.locator(".code-box .CodeMirror-code > div").nth(1)).to_contain_text("return 1 +;")
        expect(page.locator(".code-box .CodeMirror-code > div").nth(1).locator(".cm-error-line")).to_have_count(1)
        screenshots(page, "scorer-syntax-error")
        fill_code(page, "async () => {\n  return 0;\n}")
        expect(page.locator(".code-box .cm-error-line")).to_have_count(0)  # the mark was about the code before
        page.get_by_role("button", name="Create scorer").click()
        expect(page.locator(".message-success")).to_contain_text("Created scorer")

        # Attach it to a scenario from its own page; a second version; compare v1 with it and restore v1.
        page.get_by_label("Attach to").select_option(str(scenario.pk))
        page.get_by_role("button", name="Attach", exact=True).click()
        expect(page.locator(".message-success")).to_contain_text("now scores its runs with “Strict” too")
        expect(page.locator("#used-by")).to_contain_text(scenario.name)
        fill_code(page, "async () => {\n  return 1;\n}")
        page.get_by_role("button", name="Save").click()
        expect(page.locator(".message-success")).to_contain_text("as version 2")
        page.locator("#versions").get_by_role("link", name="v1").click()
        expect(page.locator("tr.diff-removed")).to_contain_text("return 0;")
        expect(page.locator("tr.diff-added")).to_contain_text("return 1;")
        screenshots(page, "scorer-version-diff")
        page.get_by_role("button", name="Restore v1").click()
        expect(page.locator(".message-success")).to_contain_text("Restored version 1 of “Strict” as version 3")
        expect(page.locator("#id_code")).to_have_value("async () => {\n  return 0;\n}")
        screenshots(page, "scorer-used-by")
        page.get_by_role("button", name=f"Detach from {scenario.name}").click()
        expect(page.locator("#used-by")).to_contain_text("No scenario uses it yet")
