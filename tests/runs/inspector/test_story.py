from __future__ import annotations

from datetime import UTC, datetime, timedelta

from runs.inspector.story import Live, build_story, live_clock, timeline
from tests.runs.inspector.records import call, multi_step_fields, text


def story_of(fields: dict) -> dict:
    return build_story(
        transcript=fields["transcript"],
        tool_calls=fields["tool_calls"],
        all_tool_calls=fields["all_tool_calls"],
        model_calls=fields["model_calls"],
    )


class BuildStoryTests:
    def test_a_program_and_its_nested_calls_are_numbered_as_all_tool_calls_lists_them(self) -> None:
        story = story_of(multi_step_fields())
        program = story["steps"][1]["calls"][0]
        assert (program["number"], program["code"] is not None, program["has_return"]) == (3, True, True)
        assert [(c["number"], c["label"]) for c in program["nested"]] == [(4, "3.1"), (5, "3.2")]
        assert program["nested_warning"] is True and program["nested_error"] is False
        assert story["steps"][1]["has_warning"] is True

    def test_a_call_after_a_program_is_labelled_by_its_order_not_its_position(self) -> None:
        # One scheme everywhere (runs/code_mode/numbering.py): the program is call 1, its calls 1.1 and 1.2, the
        # next call of the run call 2, though it is the 4th entry of allToolCalls (its anchor).
        nested = [call("get_weather", {}, {"content": []}), call("get_weather", {}, {"content": []})]
        program = call("run_code", {"code": "..."}, {"content": []}, nestedCalls=nested)
        after = call("get_weather", {}, {"content": []})
        asked = [{"toolName": "run_code", "args": {}}, {"toolName": "get_weather", "args": {}}]
        story = build_story(
            transcript={"prompt": "?", "steps": [{"text": "", "toolCalls": asked}]},
            tool_calls=[program, after],
            all_tool_calls=[program, *nested, after],
            model_calls=[],
        )
        calls = story["steps"][0]["calls"]
        assert [(c["label"], c["anchor"]) for c in calls] == [("1", "call-1"), ("2", "call-4")]
        assert [c["label"] for c in calls[0]["nested"]] == ["1.1", "1.2"]
        assert story["call_labels"] == {0: "1", 1: "1.1", 2: "1.2", 3: "2"}

    def test_a_failed_nested_call_is_the_first_error_when_it_comes_first(self) -> None:
        fields = multi_step_fields()
        fields["tool_calls"][0]["isError"] = False
        fields["tool_calls"][2]["nestedCalls"][0]["isError"] = True
        story = story_of(fields)
        assert (story["first_error"], story["error_count"]) == ("call-4", 1)
        assert story["steps"][1]["has_error"] is True

    def test_calls_the_model_asked_for_but_the_run_never_made_are_marked(self) -> None:
        fields = multi_step_fields()
        fields["tool_calls"] = fields["tool_calls"][:1]
        calls = story_of(fields)["steps"][0]["calls"]
        assert [c["executed"] for c in calls] == [True, False]

    def test_malformed_arguments_count_as_an_error(self) -> None:
        fields = multi_step_fields()
        fields["tool_calls"][1]["rawArguments"] = "{lat"
        assert story_of(fields)["error_count"] == 2

    def test_without_user_turns_the_prompt_is_the_first_turn_and_a_run_with_no_step_keeps_it(self) -> None:
        story = build_story(transcript={"prompt": "Hi"}, tool_calls=[], all_tool_calls=[], model_calls=[])
        assert [(t["source"], t["text"]) for t in story["turns_after"]] == [("prompt", "Hi")]
        assert story["steps"] == [] and story["first_error"] is None and story["final_text"] is None

    def test_a_turn_past_the_last_step_comes_after_the_steps(self) -> None:
        fields = multi_step_fields()
        fields["transcript"]["userTurns"].append({"index": 2, "source": "scripted", "text": "Bye", "firstStep": 9})
        story = story_of(fields)
        assert [t["text"] for t in story["turns_after"]] == ["Bye"]
        assert [t["text"] for t in story["steps"][1]["turns_before"]] == ["And flights?"]

    def test_records_from_before_nested_calls_are_read_from_all_tool_calls(self) -> None:
        record = call("get_weather", {"latitude": 1}, {"content": [text("Sunny")]})
        transcript = {"prompt": "?", "steps": [{"text": "", "toolCalls": [{"toolName": "get_weather"}]}]}
        story = build_story(transcript=transcript, tool_calls=[], all_tool_calls=[record], model_calls=[])
        assert story["steps"][0]["calls"][0]["anchor"] == "call-1"


class TimelineTests:
    def test_a_running_run_has_no_harness_share_yet(self) -> None:
        story = story_of(multi_step_fields())
        shares = timeline(story=story, duration_ms=None, scoring_ms=0)
        assert [s["kind"] for s in shares["segments"]] == ["model", "tools", "scoring"]
        assert shares["total_ms"] == 1460 and story["steps"][0]["percent"] == round(100 * 660 / 1460, 1)

    def test_a_run_shorter_than_its_parts_has_no_negative_harness(self) -> None:
        shares = timeline(story=story_of(multi_step_fields()), duration_ms=100, scoring_ms=0)
        assert shares["segments"][2] == {"kind": "harness", "label": "Harness", "ms": 0, "note": "", "percent": 0.0}

    def test_the_server_start_is_its_own_share_taken_from_the_harness(self) -> None:
        story = story_of(multi_step_fields())
        start = {"ms": 800, "transport": "stdio", "warm": False}
        shares = timeline(story=story, duration_ms=2460, scoring_ms=0, server_start=start)
        parts = [(s["kind"], s["label"], s["ms"], s["note"]) for s in shares["segments"]]
        assert parts == [
            ("model", "Model", 1000, ""),
            ("tools", "Tools", 460, ""),
            ("server", "Server start", 800, ""),
            ("harness", "Harness", 200, ""),
            ("scoring", "Scoring", 0, ""),
        ]

    def test_a_warm_server_starts_in_no_time_and_says_which_use_it_was(self) -> None:
        start = {"ms": 0, "transport": "stdio", "warm": True, "use": 3, "recycleAfter": 20}
        shares = timeline(story=story_of(multi_step_fields()), duration_ms=2000, scoring_ms=0, server_start=start)
        assert shares["segments"][2] == {
            "kind": "server",
            "label": "Server start",
            "ms": 0,
            "note": "warm, reused 3/20",
            "percent": 0.0,
        }

    def test_an_http_server_is_connected_to_and_never_more_than_the_run_left(self) -> None:
        start = {"ms": 5000, "transport": "http", "warm": False}
        shares = timeline(story=story_of(multi_step_fields()), duration_ms=1500, scoring_ms=0, server_start=start)
        assert [(s["label"], s["ms"]) for s in shares["segments"][2:4]] == [("Connect", 40), ("Harness", 0)]

    def test_a_running_run_counts_its_wall_time_and_the_step_in_flight(self) -> None:
        # 1.46 s recorded (model and tools); 6 s since it started, a tool running for the last 4 s of them.
        story = story_of(multi_step_fields())
        live = Live(elapsed_ms=6000, phase="tool call wait", phase_ms=4000)

        shares = timeline(story=story, duration_ms=None, scoring_ms=0, live=live)

        assert [(s["kind"], s["label"], s["ms"]) for s in shares["segments"]] == [
            ("model", "Model", 1000),
            ("tools", "Tools", 460),
            ("current", "Now: tool call wait", 4000),
            ("harness", "Harness", 540),
            ("scoring", "Scoring", 0),
        ]
        assert shares["total_ms"] == 6000

    def test_the_live_clock_counts_from_the_start_and_from_the_phase(self) -> None:
        now = datetime(2026, 1, 1, 12, 0, 10, tzinfo=UTC)

        clock = live_clock(
            started_at=now - timedelta(seconds=6),
            phase="tool call wait",
            phase_started_at=now - timedelta(seconds=4),
            now=now,
        )

        assert clock == Live(elapsed_ms=6000, phase="tool call wait", phase_ms=4000)
        assert live_clock(started_at=None, phase="", phase_started_at=None, now=now).phase_ms is None
