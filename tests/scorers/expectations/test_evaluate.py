from __future__ import annotations

import json

import pytest

from scorers.expectations import InvalidExpectations, describe, evaluate_expectations
from tests.scorers.expectations.records import travel_record

WEATHER = {"kind": "tool_called", "tool": "get_weather", "args": {"latitude": {"$range": [-90, 90]}}}
FLIGHTS = {"kind": "tool_called", "tool": "search_flights"}
BOOKED = {"kind": "tool_called", "tool": "book_flight"}
NO_BOOKING = {"kind": "tool_not_called", "tool": "search_flights"}


class ScoreTests:
    def test_all_passed(self) -> None:
        result = evaluate_expectations([WEATHER, FLIGHTS], travel_record())
        assert result.score == 1.0
        assert result.reason == "2/2 expectations passed"

    def test_score_is_the_weighted_fraction_passed(self) -> None:
        result = evaluate_expectations([WEATHER | {"weight": 3}, BOOKED], travel_record())
        assert result.score == 0.75
        assert result.reason == "1/2 expectations passed; failed: book_flight called"

    def test_a_failed_gating_expectation_keeps_the_weighted_score_and_is_named_first(self) -> None:
        result = evaluate_expectations([WEATHER, BOOKED | {"required": False}, NO_BOOKING], travel_record())
        assert result.score == pytest.approx(1 / 3)
        assert result.required_failed
        assert result.reason == (
            "1/3 expectations passed; failed: search_flights not called; book_flight called (score only)"
        )

    def test_every_expectation_gates_unless_it_says_required_false(self) -> None:
        result = evaluate_expectations([WEATHER, BOOKED | {"required": False}], travel_record())
        assert [outcome.required for outcome in result.outcomes] == [True, False]
        assert (result.score, result.required_failed) == (0.5, False)

    def test_the_reason_uses_descriptions_and_names_at_most_three(self) -> None:
        failing = [BOOKED | {"description": f"booked #{n}"} for n in range(1, 6)]
        result = evaluate_expectations([WEATHER, *failing], travel_record())
        assert result.reason == "1/6 expectations passed; failed: booked #1; booked #2; booked #3; and 2 more"

    def test_no_expectations(self) -> None:
        result = evaluate_expectations([], travel_record())
        assert (result.score, result.reason) == (1.0, "no expectations to check")

    def test_an_invalid_list_raises_with_every_error(self) -> None:
        with pytest.raises(InvalidExpectations) as raised:
            evaluate_expectations([{"kind": "tool_caled"}, {"kind": "max_turns"}], travel_record())
        assert raised.value.errors == (
            'expectations[0].kind: unknown kind "tool_caled"; did you mean "tool_called"?',
            "expectations[1].max: required for max_turns",
        )


class ResultDictTests:
    def test_it_is_json_ready(self) -> None:
        result = evaluate_expectations([WEATHER, BOOKED | {"required": True, "weight": 2}], travel_record())
        stored = json.loads(json.dumps(result.to_dict()))
        assert stored == {
            "score": pytest.approx(1 / 3),
            "reason": "1/2 expectations passed; failed: book_flight called",
            "passed": 1,
            "total": 2,
            "required_failed": True,
            "outcomes": [
                {
                    "index": 0,
                    "kind": "tool_called",
                    "label": "get_weather called with latitude in [-90, 90]",
                    "passed": True,
                    "expected": "get_weather called with latitude in [-90, 90]",
                    "actual": "get_weather called as expected (call 1)",
                    "diff": [],
                    "weight": 1.0,
                    "required": True,
                },
                {
                    "index": 1,
                    "kind": "tool_called",
                    "label": "book_flight called",
                    "passed": False,
                    "expected": "book_flight called",
                    "actual": "book_flight was not called; called: get_weather, search_flights",
                    "diff": [{"category": "missing_call", "message": "book_flight was never called"}],
                    "weight": 2.0,
                    "required": True,
                },
            ],
        }

    def test_diff_entries_about_a_call_carry_its_index(self) -> None:
        expectation = {"kind": "tool_called", "tool": "search_flights", "args": {"origin": "LYS"}}
        outcome = evaluate_expectations([expectation], travel_record()).to_dict()["outcomes"][0]
        assert outcome["diff"] == [
            {"category": "argument_mismatch", "message": 'origin: expected "LYS", got "PAR"', "call_index": 1}
        ]


class DescribeTests:
    @pytest.mark.parametrize(
        ("expectation", "sentence"),
        [
            (
                {
                    "kind": "tool_called",
                    "tool": "get_weather",
                    "args": {"latitude": {"$range": [-90, 90]}, "longitude": {"$range": [-180, 180]}},
                },
                "get_weather called with latitude in [-90, 90], longitude in [-180, 180]",
            ),
            ({"kind": "tool_called", "tool": "ping", "args": {}, "match": "exact"}, "ping called with no arguments"),
            ({"kind": "tool_not_called", "tool": "book_flight", "turn": 2}, "turn 2: book_flight not called"),
            ({"kind": "only_tools", "tools": ["a", "b"]}, "only a, b called"),
            ({"kind": "no_redundant_calls"}, "no tool called twice with the same arguments"),
            ({"kind": "max_tool_calls", "max": 1}, "at most 1 tool call"),
            ({"kind": "no_tool_errors"}, "no tool call returned an error"),
            ({"kind": "structured_output_valid"}, "structured outputs match their tools' output schemas"),
            (
                {"kind": "tool_result", "tool": "get_weather", "path": "$.content[0].text", "contains": "Sunny"},
                'get_weather returned content[0].text containing "Sunny"',
            ),
            ({"kind": "final_answer", "not_contains": "sorry"}, 'final answer does not contain "sorry"'),
            ({"kind": "final_answer", "json_schema": {}}, "final answer is JSON matching a schema"),
            ({"kind": "max_cost_usd", "max": 2}, "cost at most $2"),
        ],
    )
    def test_it_gives_a_sentence_per_kind(self, expectation: dict, sentence: str) -> None:
        assert describe(expectation) == sentence
