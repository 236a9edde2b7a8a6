"""Matchers on every target: tool-call arguments, the final answer, tool names, tool results and structured
content, each through an optional jq `transform`, and `$snapshot` across evaluations."""

from __future__ import annotations

from typing import Any

from scorers.expectations import evaluate_expectations, validate_expectations
from scorers.expectations.matchers import Snapshots
from tests.scorers.expectations.helpers import check, diff
from tests.scorers.expectations.records import call, record, result, travel_record

LEVENSHTEIN = {"$levenshtein": {"value": "It is sunny in Paris (21.5 °C).", "max": 3}}


class FinalAnswerMatchesTests:
    def test_any_matcher_reads_the_answer(self) -> None:
        outcome = check(
            {"kind": "final_answer", "matches": LEVENSHTEIN}, record([], answer="It is sunny in Paris (21 °C).")
        )
        assert outcome.passed, outcome.diff
        assert outcome.label == 'final answer within 3 edits of "It is sunny in Paris (21.5 °C)."'

    def test_a_failure_names_the_answer(self) -> None:
        outcome = check(
            {"kind": "final_answer", "matches": {"$not": {"$icontains": "sorry"}}}, record([], answer="Sorry!")
        )
        assert diff(outcome) == [
            ("answer_mismatch", 'answer: expected not a string containing "sorry" (ignoring case), got "Sorry!"', None)
        ]

    def test_a_transform_reshapes_the_answer_first(self) -> None:
        expectation = {"kind": "final_answer", "transform": "fromjson | .status", "matches": {"$oneOf": ["ok", "done"]}}
        assert check(expectation, record([], answer='{"status": "done"}')).passed
        outcome = check(expectation, record([], answer='{"status": "failed"}'))
        assert diff(outcome) == [("answer_mismatch", 'answer: expected one of ["ok", "done"], got "failed"', None)]

    def test_text_checks_read_a_transformed_value_as_json_text(self) -> None:
        expectation = {"kind": "final_answer", "transform": "fromjson | .items | length", "equals": "2"}
        assert check(expectation, record([], answer='{"items": [1, 2]}')).passed

    def test_a_failing_transform_fails_the_check_and_says_why(self) -> None:
        outcome = check({"kind": "final_answer", "transform": "fromjson", "contains": "x"}, record([], answer="plain"))
        [(category, message, _)] = diff(outcome)
        assert category == "answer_mismatch"
        assert (
            message == "transform 'fromjson' failed on \"plain\": Invalid numeric literal at EOF at line 1, column 5 "
            "(while parsing 'plain')"
        )

    def test_a_transform_must_give_one_value(self) -> None:
        outcome = check({"kind": "final_answer", "transform": "empty", "matches": "x"}, record([], answer="a"))
        assert diff(outcome) == [
            ("answer_mismatch", "answer: transform 'empty' gave no value for \"a\"; it must give exactly one", None)
        ]


class ToolNamesTests:
    def test_the_trajectory_as_a_list(self) -> None:
        assert check({"kind": "tool_names", "matches": ["get_weather", "search_flights"]}, travel_record()).passed
        outcome = check({"kind": "tool_names", "matches": ["search_flights", "get_weather"]}, travel_record())
        assert diff(outcome) == [
            ("out_of_order", 'tool names[0]: expected "search_flights", got "get_weather"', None),
            ("out_of_order", 'tool names[1]: expected "get_weather", got "search_flights"', None),
        ]

    def test_contains_all_and_a_forbidden_tool(self) -> None:
        assert check({"kind": "tool_names", "matches": {"$containsAll": ["get_weather"]}}, travel_record()).passed
        outcome = check({"kind": "tool_names", "matches": {"$not": {"$contains": "search_flights"}}}, travel_record())
        assert outcome.label == 'tool names not containing "search_flights"'
        assert outcome.actual == 'tool names: ["get_weather", "search_flights"]'
        assert not outcome.passed

    def test_a_transform_counts(self) -> None:
        assert check(
            {"kind": "tool_names", "transform": "length", "matches": {"$range": [1, 2]}}, travel_record()
        ).passed


class ToolResultMatchesTests:
    def test_structured_content_with_a_composition(self) -> None:
        expectation = {
            "kind": "tool_result",
            "tool": "get_weather",
            "path": "$.structuredContent",
            "matches": {"$allOf": [{"$contains": {"unit": "C"}}, {"$schema": {"required": ["temperature"]}}]},
        }
        assert check(expectation, travel_record()).passed

    def test_matches_compares_objects_on_the_keys_given_and_equals_exactly(self) -> None:
        base = {"kind": "tool_result", "tool": "get_weather", "path": "$.structuredContent"}
        assert check(base | {"matches": {"unit": "C"}}, travel_record()).passed
        outcome = check(base | {"equals": {"unit": "C"}}, travel_record())
        assert diff(outcome) == [("result_mismatch", 'structuredContent: extra key "temperature"', 0)]

    def test_a_transform_on_the_text_content(self) -> None:
        expectation = {
            "kind": "tool_result",
            "tool": "get_weather",
            "path": "$.content[0].text",
            "transform": "fromjson | .condition | ascii_downcase",
            "matches": {"$startsWith": "sun"},
        }
        assert check(expectation, travel_record()).passed
        outcome = check(expectation | {"matches": {"$startsWith": "rain"}}, travel_record())
        assert diff(outcome) == [
            ("result_mismatch", 'content[0].text: expected a string starting with "rain", got "sunny"', 0)
        ]

    def test_contains_is_the_matcher_s(self) -> None:
        expectation = {
            "kind": "tool_result",
            "tool": "search_flights",
            "path": "$.structuredContent",
            "contains": {"flights": [{"flight": "AF006"}]},
        }
        assert check(expectation, travel_record()).passed


class ToolCalledTransformTests:
    def test_arguments_through_a_transform(self) -> None:
        expectation = {
            "kind": "tool_called",
            "tool": "search_flights",
            "transform": '{route: (.origin + "-" + .destination)}',
            "args": {"route": {"$levenshtein": {"value": "PAR-NYC", "max": 0}}},
        }
        outcome = check(expectation, travel_record())
        assert outcome.passed, outcome.diff
        assert outcome.label.endswith('(arguments through {route: (.origin + "-" + .destination)})')

    def test_transform_needs_args(self) -> None:
        assert validate_expectations([{"kind": "tool_called", "tool": "a", "transform": "."}]) == [
            "expectations[0].transform: only applies with args"
        ]


class TransformValidationTests:
    def test_a_program_that_does_not_compile_names_its_place(self) -> None:
        [error] = validate_expectations([{"kind": "tool_names", "matches": [], "transform": ".["}])
        assert error.startswith("expectations[0].transform: is not a valid jq program (jq: error: syntax error")

    def test_matchers_in_matches_name_their_place(self) -> None:
        assert validate_expectations([{"kind": "final_answer", "matches": {"$anyOf": [{"$startswith": "a"}]}}]) == [
            'expectations[0].matches.$anyOf[0]: unknown matcher "$startswith"; did you mean "$startsWith"?'
        ]


def _answer_snapshot(answer: str, snapshots: Snapshots) -> dict[str, Any]:
    checked = evaluate_expectations(
        [{"kind": "final_answer", "matches": {"$snapshot": True}}], record([], answer=answer), snapshots=snapshots
    )
    return checked.to_dict()


class SnapshotEvaluationTests:
    def test_created_then_compared(self) -> None:
        first = _answer_snapshot("Sunny", Snapshots())
        assert first["passed"] == 1
        assert first["snapshots"] == [{"key": "final_answer", "value": "Sunny", "status": "created"}]
        stored = {entry["key"]: entry["value"] for entry in first["snapshots"]}
        assert _answer_snapshot("Sunny", Snapshots(stored=stored))["snapshots"][0]["status"] == "matched"
        later = _answer_snapshot("Rainy", Snapshots(stored=stored))
        assert later["passed"] == 0
        assert later["snapshots"] == [{"key": "final_answer", "value": "Rainy", "status": "mismatched"}]

    def test_keys_carry_the_turn_and_transform(self) -> None:
        snapshots = Snapshots()
        expectation = {
            "kind": "tool_result",
            "tool": "get_weather",
            "path": "$.structuredContent",
            "transform": ".unit",
            "matches": {"$snapshot": True},
        }
        evaluate_expectations([expectation], travel_record(), snapshots=snapshots)
        assert list(snapshots.seen) == ["tool_result get_weather $.structuredContent | .unit"]

    def test_one_of_several_calls_compares_with_the_first_value_seen(self) -> None:
        calls = [
            call("get_weather", {"city": "Paris"}, result("a")),
            call("get_weather", {"city": "Lyon"}, result("b")),
        ]
        snapshots = Snapshots()
        checked = evaluate_expectations(
            [{"kind": "tool_called", "tool": "get_weather", "args": {"city": {"$snapshot": True}}, "times": 2}],
            record(calls),
            snapshots=snapshots,
        )
        assert snapshots.seen["tool_called get_weather args city"]["value"] == "Paris"
        assert not checked.outcomes[0].passed  # Lyon differs from the Paris just recorded
