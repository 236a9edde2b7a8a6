"""The run page's transcript inspector, read through the view: one story, errors marked, values readable,
untrusted text escaped; and the Runs list's cost, the same as the run page's."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import timezone

from evalhub.scenarios.models import Scenario
from runs.models import Run, ScoreResult
from runs.run_verdict import apply_verdict
from tests.base import make_demo_server, make_scenario
from tests.runs.inspector.records import HOSTILE, LONG_TEXT, PIXEL, call, multi_step_fields, text


@pytest.fixture
def scenario(db: None) -> Scenario:
    return make_scenario(make_demo_server())


def make_run(scenario: Scenario, **fields: object) -> Run:
    defaults: dict[str, object] = {"model": "gpt-4o", "status": "done", "score": 1.0, "passed": True}
    fields = {**defaults, **fields}
    # A finished run is judged (runs.run_verdict); a test that names no verdict gets the one `passed` says.
    if fields["status"] == "done" and "verdict" not in fields:
        fields["verdict"] = {True: "pass", False: "fail"}.get(fields["passed"], "inconclusive")  # type: ignore[call-overload]
    return Run.objects.create(scenario=scenario, **{"started_at": timezone.now(), **fields})


def cost_cell(html: str, run: Run) -> str:
    row = re.search(rf'<tr id="run-{run.pk}".*?</tr>', html, re.S)[0]  # type: ignore[index]
    cell = re.search(r'<td class="run-cost">(.*?)</td>', row, re.S)[1]  # type: ignore[index]
    return " ".join(re.sub(r"<[^>]+>", " ", cell).split())


def page_cost(html: str) -> str:
    cell = re.search(r'<div class="stat-value" id="run-cost">(.*?)</div>', html, re.S)[0]  # type: ignore[index]
    return " ".join(re.sub(r"<[^>]+>", " ", cell).split())


@pytest.mark.django_db
class RunStoryTests:
    def test_steps_are_numbered_and_each_call_holds_its_arguments_and_result(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        run = make_run(scenario, **multi_step_fields())

        response = alice_client.get(f"/runs/{run.pk}/")

        story = response.context["story"]
        assert [step["number"] for step in story["steps"]] == [1, 2, 3]
        calls = story["steps"][0]["calls"] + story["steps"][1]["calls"]
        # Anchors count calls as allToolCalls lists them: a program, then the calls it made.
        assert [call["anchor"] for call in calls] == ["call-1", "call-2", "call-3"]
        assert [(c["label"], c["anchor"]) for c in calls[2]["nested"]] == [("3.1", "call-4"), ("3.2", "call-5")]
        assert (story["first_error"], story["error_count"]) == ("call-1", 1)
        html = response.content.decode()
        failed = re.search(
            r'<details class="call call-error" id="call-1" data-key="call-1" open>.*?</details>\s*<details', html, re.S
        )
        assert failed and "Coordinates out of range: latitude 91, longitude 2.35." in failed[0]
        assert '<a class="jump-error" href="#call-1">' in html
        # The final answer once: the last step points to it instead of repeating it.
        shown = re.sub(r'data-copy="[^"]*"', "", html)  # the copy button holds it too, unseen
        assert shown.count("It is 18.5 °C and clear in Paris.") == 1

    def test_structured_content_is_shown_once_as_a_tree(self, alice_client: Client, scenario: Scenario) -> None:
        run = make_run(scenario, **multi_step_fields())

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        call = html[html.index('id="call-2"') : html.index('id="step-2"')]
        assert call.count('<span class="json-key">temperature_c</span>') == 1
        assert "structuredContent (its text copy is not repeated)" in call
        assert 'data-json-path="[]"' in call and 'class="copy-button"' in call
        assert (
            '<span class="badge badge-pass" title="structuredContent matches the outputSchema">schema ok</span>' in call
        )

    def test_untrusted_text_stays_text(self, alice_client: Client, scenario: Scenario) -> None:
        run = make_run(scenario, **multi_step_fields())

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert HOSTILE not in html and "<script>window.pwned" not in html
        escaped = "&lt;script&gt;window.pwned = true&lt;/script&gt;"
        # In the program's console, its result, and the embedded resource; each escaped.
        assert html.count(escaped) >= 3

    def test_images_are_previewed_from_their_own_bytes_only(self, alice_client: Client, scenario: Scenario) -> None:
        run = make_run(scenario, **multi_step_fields())

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert f'<img src="data:image/png;base64,{PIXEL}"' in html
        assert "data:image/svg+xml" not in html and "image/svg+xml (16 base64 characters), not shown" in html
        assert "https://example.com/map</code>" in html and "(not fetched)" in html
        assert 'src="https://example.com' not in html and 'href="https://example.com' not in html

    def test_a_long_value_is_folded_behind_show_all(self, alice_client: Client, scenario: Scenario) -> None:
        run = make_run(scenario, **multi_step_fields())

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert "show all 3,000 characters" in html
        assert LONG_TEXT in html  # the whole of it, behind the fold

    def test_a_program_shows_its_code_console_return_value_and_nested_calls(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        run = make_run(scenario, **multi_step_fields())

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        program = html[html.index('id="call-3"') : html.index('id="step-3"')]
        assert '<pre class="code program">const w = await tools.search_flights({origin: &quot;PAR&quot;});' in program
        assert "Console (2 lines)" in program and "Tool calls made by the program (2)" in program
        assert '<span class="call-label">call 3.2</span>' in program
        assert "⚠ Schema: structuredContent at (root): &#x27;city&#x27; is a required property" in " ".join(
            re.sub(r"<[^>]+>", " ", program).split()
        )
        assert "Return value" in program and '<span class="json-key">flights</span>' in program
        # Its result is the console and the return value as text for the model: shown once above, folded here.
        assert '<div class="call-part-head">Result</div>' not in program[program.index("Return value") :]
        assert '<details class="call-part call-result call-model-read" data-key="call-3-model-read">' in program

    def test_a_call_cut_off_by_a_cancel_says_so_and_is_not_marked_as_a_success(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        note = "No result: the run was cancelled 4.2 s into this call, which was stopped."
        cut_off = call("wait", {"seconds": 30}, {"content": [text(note)], "isError": False}, cancelled=True)
        transcript = {"prompt": "Wait", "steps": [{"text": "", "toolCalls": [{"toolName": "wait", "args": {}}]}]}
        run = make_run(
            scenario,
            status="cancelled",
            stop_reason="cancelled",
            score=None,
            passed=None,
            transcript=transcript,
            tool_calls=[cut_off],
            all_tool_calls=[cut_off],
        )

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        shown = html[html.index('id="call-1"') :]
        assert shown.startswith('id="call-1" data-key="call-1">') and 'class="call call-warning"' in html
        assert ">cancelled</span>" in shown and "No result (cancelled)" in shown and note in shown
        assert "not called: the run stopped first" not in html

    def test_an_expectation_links_a_programs_call_by_the_label_the_transcript_gives_it(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        # allToolCalls index 4 is the program's second call: "call 3.2" in the transcript, so in the checklist too
        # (it read "call 5" there).
        run = make_run(scenario, **multi_step_fields())
        entry = {"category": "unexpected_call", "message": "get_map was called (call 3.2)", "call_index": 4}
        outcome = {"index": 0, "kind": "tool_not_called", "label": "get_map not called", "passed": False}
        outcome |= {"expected": "get_map not called", "actual": "get_map called", "diff": [entry]}
        details = {"score": 0, "reason": "", "passed": 0, "total": 1, "outcomes": [outcome | {"weight": 1}]}
        ScoreResult.objects.create(run=run, scorer_name="Expectations", scorer_kind="expectations", details=details)

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert '<a class="small" href="#call-5">call 3.2</a>' in html
        assert '<span class="call-label">call 3.2</span>' in html[html.index('id="call-5"') :]

    def test_user_turns_come_before_the_step_they_led_to(self, alice_client: Client, scenario: Scenario) -> None:
        run = make_run(scenario, **multi_step_fields())

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert html.index("Weather in Paris?</pre>") < html.index('id="step-1"')
        assert html.index('id="step-1"') < html.index("And flights?") < html.index('id="step-2"')
        assert 'title="Written by the simulated user model, not by a person">simulated</span>' in html

    def test_the_timeline_splits_the_run_into_model_tools_harness_and_scoring(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        run = make_run(scenario, **multi_step_fields())
        ScoreResult.objects.create(run=run, scorer_name="Default", scorer_kind="default", score=1, duration_ms=500)

        timeline = alice_client.get(f"/runs/{run.pk}/").context["timeline"]

        # Model 500 + 400 + 100; tools 40 + 120 + 300 (top-level calls: a program's time includes its calls).
        assert [(s["kind"], s["ms"]) for s in timeline["segments"]] == [
            ("model", 1000),
            ("tools", 460),
            ("harness", 540),
            ("scoring", 500),
        ]
        assert [s["percent"] for s in timeline["segments"]] == [40.0, 18.4, 21.6, 20.0]

    def test_the_timeline_says_how_the_server_started(self, alice_client: Client, scenario: Scenario) -> None:
        start = {"ms": 0, "transport": "stdio", "warm": True, "use": 3, "recycleAfter": 20}
        run = make_run(scenario, **multi_step_fields(), server_start=start)

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        legend = " ".join(re.sub(r"<[^>]+>", " ", html).split())
        assert "Server start 0 ms (warm, reused 3/20)" in legend

    def test_a_running_run_counts_the_step_in_flight_in_its_timing(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        # The issue: "10 ms in all so far" while a tool had run for 4 s, as only finished steps were counted.
        now = timezone.now()
        run = make_run(
            scenario,
            status="running",
            score=None,
            passed=None,
            started_at=now - timedelta(seconds=5),
            heartbeat_at=now,
            phase="tool call wait",
            phase_started_at=now - timedelta(seconds=4),
        )

        response = alice_client.get(f"/runs/{run.pk}/")

        segments = {s["kind"]: s for s in response.context["timeline"]["segments"]}
        assert segments["current"]["label"] == "Now: tool call wait" and segments["current"]["ms"] >= 4000
        assert response.context["timeline"]["total_ms"] >= 5000
        html = " ".join(re.sub(r"<[^>]+>", " ", response.content.decode()).split())
        assert re.search(r"[45]\.\d s in all so far", html), html
        assert re.search(r"Now: tool call wait [45]\.\d s", html)

    def test_a_refresh_keeps_the_same_collapsible_keys(self, alice_client: Client, scenario: Scenario) -> None:
        # What a reader opened is remembered by these keys across the live refreshes of #run-body.
        run = make_run(
            scenario,
            status="running",
            score=None,
            passed=None,
            heartbeat_at=timezone.now(),
            **{**multi_step_fields(), "duration_ms": None},
        )

        first = alice_client.get(f"/runs/{run.pk}/", HTTP_HX_REQUEST="true").content.decode()
        again = alice_client.get(f"/runs/{run.pk}/", HTTP_HX_REQUEST="true").content.decode()

        assert first.lstrip().startswith('<div id="run-body"')
        keys = re.findall(r'data-key="([^"]+)"', first)
        assert len(keys) == len(set(keys)) > 10 and keys == re.findall(r'data-key="([^"]+)"', again)


@pytest.mark.django_db
class RunCostTests:
    def test_the_runs_list_and_the_run_page_show_the_same_labelled_cost(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        run = make_run(scenario, **multi_step_fields())
        judged = {"run": run, "scorer_kind": "judge", "score": 1, "passed": True}
        ScoreResult.objects.create(scorer_name="Judge", cost_usd=Decimal("0.0004"), **judged)
        ScoreResult.objects.create(scorer_name="Old", cost_usd=Decimal("9"), is_current=False, **judged)
        ScoreResult.objects.create(scorer_name="Skipped", outcome="skipped", **judged)

        listed = cost_cell(alice_client.get("/runs/").content.decode(), run)
        shown = page_cost(alice_client.get(f"/runs/{run.pk}/").content.decode())

        assert listed == shown == "$0.0030 agent + $0.0004 judge"

    def test_a_judge_of_unknown_price_makes_the_judge_part_unknown(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        run = make_run(scenario, **multi_step_fields())
        for cost in (Decimal("0.0004"), None):
            ScoreResult.objects.create(run=run, scorer_name="J", scorer_kind="judge", score=1, cost_usd=cost)

        assert cost_cell(alice_client.get("/runs/").content.decode(), run) == "$0.0030 agent + unknown judges"

    def test_a_run_that_never_reached_the_model_says_so(self, alice_client: Client, scenario: Scenario) -> None:
        run = make_run(
            scenario,
            status="error",
            passed=False,
            error={"step": "connect", "kind": "command_not_found", "message": "No such command."},
        )
        priced_unknown = make_run(scenario, model_calls=[{"step": 1, "cost_usd": None, "latency_ms": 5}])

        listed = alice_client.get("/runs/").content.decode()
        page = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert cost_cell(listed, run) == page_cost(page) == "no model call"
        assert cost_cell(listed, priced_unknown) == "unknown agent"
        assert 'href="#run-error"' in page and 'id="run-error"' in page


def judged(run: Run, *results: dict[str, object]) -> Run:
    """Store `results` on the finished `run` and judge it as the worker does (runs.run_verdict)."""
    stored = [ScoreResult.objects.create(run=run, duration_ms=5, **fields) for fields in results]  # type: ignore[arg-type]
    apply_verdict(run, stored)
    run.save()
    return run


def card(html: str) -> str:
    return re.search(r'<section class="card verdict-card.*?</section>', html, re.S)[0]  # type: ignore[index]


@pytest.mark.django_db
class VerdictCardTests:
    def test_a_server_failure_names_the_server_and_opens_the_stage_where_it_failed(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        broken = {"content": [text("upstream weather service is down")], "isError": True}
        calls = [call("get_weather", {"latitude": 48.85, "longitude": 2.35}, broken) for _ in range(3)]
        run = make_run(scenario, score=0.4, passed=None, verdict="", all_tool_calls=calls)
        judged(
            run,
            {"scorer_name": "Expectations", "scorer_kind": "expectations", "score": 0.0, "passed": False},
            {"scorer_name": "Tone", "scorer_kind": "code", "score": 0.8, "passed": True, "gating": False},
            {"scorer_name": "Coords", "scorer_kind": "code", "score": 0.9, "passed": True, "threshold": 0.85},
        )

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()
        verdict = card(html)

        assert 'class="card verdict-card verdict-card-fail"' in verdict
        assert (
            '><span class="verdict-main">fail 0.40</span> <span class="verdict-cause">· server</span></span>' in verdict
            and "cause: <strong>server</strong>" in verdict
        )
        assert '<p class="verdict-reason">server: get_weather returned an error on 3 of 3 calls</p>' in verdict
        states = re.findall(
            r'<li class="stage stage-[a-z-]+" data-state="([a-z ]+)" title="[^"]+"(?: aria-current="step")?>'
            r'<span class="stage-mark" aria-hidden="true">.</span> ([a-z ]+) <',
            verdict,
        )
        assert states == [
            ("passed", "connected"),
            ("passed", "tools listed"),
            ("passed", "tool chosen"),
            ("passed", "tool called"),
            ("failed", "result returned"),
            ("not reached", "request satisfied"),
        ]
        # The failed stage is marked, and its detail is open: what it checks, and a link to the failed call.
        assert verdict.count('aria-current="step"') == 1
        assert re.search(
            r'data-state="failed" title="the tool answered without an error" aria-current="step">', verdict
        )
        assert (
            '<details class="stage-detail" open data-key="verdict-stage"><summary class="small">Failed at ' in verdict
        )
        assert "This stage checks that the tool answered without an error. It is where the run failed" in verdict
        assert "self-judging" not in verdict
        # Each score result says whether it gates, and at which threshold.
        assert 'data-gate="gating" title="Failing it fails the run">gating ≥ 0.85</span>' in html
        assert 'data-gate="advisory"' in html and html.count('data-gate="gating"') == 2

    def test_a_skipped_judge_is_inconclusive_never_a_red_fail(self, alice_client: Client, scenario: Scenario) -> None:
        run = make_run(scenario, score=None, passed=None, verdict="")
        judged(run, {"scorer_name": "Judge", "scorer_kind": "judge", "outcome": "skipped", "reason": "offline model"})

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()
        verdict = card(html)

        assert 'class="card verdict-card verdict-card-inconclusive"' in verdict
        assert '<span class="badge badge-warn verdict-badge" data-verdict="inconclusive"' in verdict
        assert (
            '><span class="verdict-main">inconclusive</span> <span class="verdict-cause">· judge</span></span>'
            in verdict
        )
        assert re.search(r'data-state="undecided" title="[^"]+" aria-current="step">', verdict)
        assert "Undecided at <strong>request satisfied</strong>" in verdict
        assert "badge-fail" not in verdict and "fail —" not in html
        # The summary's result is the same badge.
        assert html.count('data-verdict="inconclusive"') == 2

    def test_self_judging_is_flagged_and_the_reason_stays_text(self, alice_client: Client, scenario: Scenario) -> None:
        run = make_run(
            scenario,
            score=0.2,
            passed=False,
            verdict="fail",
            failure_cause="agent",
            failure_reason=f"agent: Judge failed: {HOSTILE}",
            stages=[{"stage": "request satisfied", "state": "failed"}],
            self_judging=True,
        )

        verdict = card(alice_client.get(f"/runs/{run.pk}/").content.decode())

        assert '<span class="badge badge-warn" id="self-judging"' in verdict
        assert "<script>" not in verdict and "&lt;script&gt;window.pwned = true&lt;/script&gt;" in verdict

    def test_a_run_without_a_verdict_has_no_card(self, alice_client: Client, scenario: Scenario) -> None:
        run = make_run(scenario, status="running", score=None, passed=None)

        assert 'id="verdict"' not in alice_client.get(f"/runs/{run.pk}/").content.decode()
