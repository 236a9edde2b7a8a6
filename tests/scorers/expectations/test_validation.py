from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from scorers.expectations import EXPECTATIONS_JSON_SCHEMA, KIND_DESCRIPTIONS, MATCHERS, validate_expectations

WEATHER = {"kind": "tool_called", "tool": "get_weather", "args": {"latitude": {"$range": [-90, 90]}}}


def errors_of(expectation: Any) -> list[str]:
    """The errors of a list whose third item is `expectation`, so pointers show the index."""
    return validate_expectations([WEATHER, {"kind": "no_tool_errors"}, expectation])


class ValidateExpectationsTests:
    def test_a_valid_list(self) -> None:
        assert validate_expectations([WEATHER, {"kind": "final_answer", "contains": "Paris", "weight": 0.5}]) == []

    def test_it_points_at_an_unknown_matcher_and_suggests(self) -> None:
        expectation = {"kind": "tool_called", "tool": "get_weather", "args": {"latitude": {"$rnage": [-90, 90]}}}
        assert errors_of(expectation) == [
            'expectations[2].args.latitude: unknown matcher "$rnage"; did you mean "$range"?'
        ]

    def test_it_points_inside_nested_arguments(self) -> None:
        expectation = {"kind": "tool_called", "tool": "plan", "args": {"legs": [{"origin": {"$regx": "^P"}}]}}
        assert errors_of(expectation) == [
            'expectations[2].args.legs[0].origin: unknown matcher "$regx"; did you mean "$regex"?'
        ]

    def test_range_needs_two_ordered_numbers(self) -> None:
        expectation = {"kind": "tool_called", "tool": "get_weather", "args": {"latitude": {"$range": [90, -90]}}}
        assert errors_of(expectation) == [
            "expectations[2].args.latitude: $range needs two ordered numbers [min, max], got [90, -90]"
        ]

    def test_it_suggests_a_known_kind(self) -> None:
        assert errors_of({"kind": "tool_caled", "tool": "x"}) == [
            'expectations[2].kind: unknown kind "tool_caled"; did you mean "tool_called"?'
        ]
        assert errors_of({"kind": "vibes"}) == ['expectations[2].kind: unknown kind "vibes"']

    def test_it_requires_a_kind(self) -> None:
        [error] = errors_of({"tool": "x"})
        assert error.startswith("expectations[2].kind: required (one of tool_called, tool_not_called, ")

    def test_it_rejects_unknown_keys_and_suggests(self) -> None:
        assert errors_of({"kind": "tool_sequence", "tols": ["a"]}) == [
            'expectations[2].tols: unknown key for tool_sequence; did you mean "tools"?',
            "expectations[2].tools: required for tool_sequence",
        ]
        assert errors_of({"kind": "no_tool_errors", "severity": "high"}) == [
            "expectations[2].severity: unknown key for no_tool_errors"
        ]

    def test_it_checks_types(self) -> None:
        expectation = {
            "kind": "tool_called",
            "tool": "",
            "times": "3",
            "weight": 0,
            "required": "yes",
            "turn": -1,
        }
        assert errors_of(expectation) == [
            'expectations[2].tool: expected a tool name, got ""',
            'expectations[2].times: expected a non-negative integer, got "3"',
            "expectations[2].weight: expected a number > 0, got 0",
            'expectations[2].required: expected true or false, got "yes"',
            "expectations[2].turn: expected an integer ≥ 0, got -1",
        ]

    def test_a_boolean_is_not_a_count(self) -> None:
        assert errors_of({"kind": "max_tool_calls", "max": True}) == [
            "expectations[2].max: expected a non-negative integer, got true"
        ]

    def test_it_checks_selectors_and_modes(self) -> None:
        assert errors_of({"kind": "tool_called", "tool": "a", "call": {"nth": 0}}) == [
            'expectations[2].call: expected "any", "first" or {"nth": n} with n ≥ 1, got {"nth": 0}'
        ]
        assert errors_of({"kind": "tool_result", "tool": "a", "call": "any", "equals": 1}) == [
            'expectations[2].call: expected "first" or {"nth": n} with n ≥ 1, got "any"'
        ]
        assert errors_of({"kind": "tool_sequence", "tools": [], "mode": "strict"}) == [
            "expectations[2].tools: expected a non-empty list of tool names, got []",
            'expectations[2].mode: expected "in_order" or "exact", got "strict"',
        ]

    def test_tool_called_rules_across_parameters(self) -> None:
        assert errors_of({"kind": "tool_called", "tool": "a", "times": 1, "at_most": 2}) == [
            "expectations[2].times: give times, or at_least/at_most, not both"
        ]
        assert errors_of({"kind": "tool_called", "tool": "a", "at_least": 3, "at_most": 2}) == [
            "expectations[2].at_most: 2 is below at_least 3"
        ]
        assert errors_of({"kind": "tool_called", "tool": "a", "match": "exact"}) == [
            "expectations[2].match: only applies with args"
        ]
        assert errors_of({"kind": "tool_called", "tool": "a", "call": "first", "times": 1}) == [
            'expectations[2].call: counts apply to all calls; use call "any" (the default) with them'
        ]

    def test_exactly_one_check(self) -> None:
        assert errors_of({"kind": "final_answer"}) == [
            "expectations[2]: final_answer needs exactly one of contains, icontains, not_contains, regex, equals, "
            "starts_with, is_json, json_schema, matches"
        ]
        assert errors_of({"kind": "final_answer", "contains": "a", "regex": "b"}) == [
            "expectations[2]: final_answer needs exactly one of contains, icontains, not_contains, regex, equals, "
            "starts_with, is_json, json_schema, matches, got contains and regex"
        ]
        assert errors_of({"kind": "tool_not_called"}) == [
            "expectations[2]: tool_not_called needs exactly one of tool, tools"
        ]
        assert errors_of({"kind": "final_answer", "is_json": False}) == [
            "expectations[2].is_json: expected true, got false"
        ]

    def test_invalid_regexes(self) -> None:
        [error] = errors_of({"kind": "final_answer", "regex": "(unclosed"})
        assert error.startswith("expectations[2].regex: is not a valid regular expression (missing )")
        [error] = errors_of({"kind": "tool_result", "tool": "a", "regex": "[a-"})
        assert error.startswith("expectations[2].regex: is not a valid regular expression (unterminated character set")

    def test_invalid_json_schemas(self) -> None:
        assert errors_of({"kind": "final_answer", "json_schema": {"type": "strin"}}) == [
            "expectations[2].json_schema: is not a valid JSON Schema: 'strin' is not valid under any of the given "
            "schemas"
        ]
        assert errors_of({"kind": "tool_result", "tool": "a", "json_schema": "object"}) == [
            'expectations[2].json_schema: expected a JSON Schema, got "object"'
        ]

    def test_tool_result_paths(self) -> None:
        assert errors_of({"kind": "tool_result", "tool": "a", "path": "$.content[-1].text", "equals": "x"}) == [
            "expectations[2].path: cannot read '[-1].text' (use .key, [0] or [\"key\"])"
        ]
        assert errors_of({"kind": "tool_result", "tool": "a", "path": "content[0]", "equals": {"$tpye": "x"}}) == [
            'expectations[2].equals: unknown matcher "$tpye"; did you mean "$type"?'
        ]

    def test_whole_run_kinds_refuse_a_turn(self) -> None:
        assert errors_of({"kind": "max_cost_usd", "max": 0.05, "turn": 1}) == [
            "expectations[2].turn: max_cost_usd applies to the whole run, not to one turn"
        ]

    def test_stop_reasons_are_known(self) -> None:
        assert errors_of({"kind": "stop_reason", "equals": "complete"}) == [
            'expectations[2].equals: unknown stop reason "complete"; did you mean "completed"?'
        ]

    def test_the_list_and_its_items(self) -> None:
        assert validate_expectations({"kind": "no_tool_errors"}) == [
            'expectations: expected a list, got {"kind": "no_tool_errors"}'
        ]
        assert validate_expectations(["no_tool_errors"]) == [
            'expectations[0]: expected an object, got "no_tool_errors"'
        ]


class JsonSchemaTests:
    validator = Draft202012Validator(EXPECTATIONS_JSON_SCHEMA)

    def test_it_is_a_valid_json_schema(self) -> None:
        Draft202012Validator.check_schema(EXPECTATIONS_JSON_SCHEMA)

    def test_it_lists_every_kind_and_matcher_with_descriptions(self) -> None:
        kinds = [item["properties"]["kind"]["const"] for item in EXPECTATIONS_JSON_SCHEMA["items"]["oneOf"]]
        assert kinds == list(KIND_DESCRIPTIONS)
        matchers = EXPECTATIONS_JSON_SCHEMA["$defs"]["matcher"]["oneOf"]
        assert [next(iter(m["properties"])) for m in matchers] == list(MATCHERS)
        assert all(m["description"] == MATCHERS[next(iter(m["properties"]))] for m in matchers)

    @pytest.mark.parametrize(
        "expectation",
        [
            WEATHER | {"weight": 2, "required": True, "description": "coordinates", "turn": 1},
            {"kind": "tool_called", "tool": "a", "args": {"legs": [{"origin": {"$regex": "^P"}}]}, "match": "exact"},
            {"kind": "tool_called", "tool": "a", "call": {"nth": 2}},
            {"kind": "tool_called", "tool": "a", "at_least": 1, "at_most": 2},
            {"kind": "tool_not_called", "tools": ["a", "b"]},
            {"kind": "tool_sequence", "tools": ["a", "b"], "mode": "exact"},
            {"kind": "no_redundant_calls", "allowance": 1},
            {"kind": "tool_result", "tool": "a", "path": "$.structuredContent.t", "equals": {"$range": [0, 1]}},
            {"kind": "final_answer", "is_json": True},
            {"kind": "stop_reason", "equals": "completed"},
            {"kind": "max_cost_usd", "max": 0.05},
        ],
    )
    def test_it_accepts_what_validation_accepts(self, expectation: dict) -> None:
        assert validate_expectations([expectation]) == []
        assert self.validator.is_valid([expectation])

    @pytest.mark.parametrize(
        "expectation",
        [
            {"kind": "tool_caled", "tool": "a"},
            {"kind": "tool_sequence", "tols": ["a"]},
            {"kind": "tool_called", "tool": "a", "args": {"x": {"$rnage": [0, 1]}}},
            {"kind": "tool_called", "tool": "a", "times": 1, "at_least": 1},
            {"kind": "final_answer", "contains": "a", "regex": "b"},
            {"kind": "tool_not_called"},
            {"kind": "max_turns", "max": 3, "turn": 1},
            {"kind": "stop_reason", "equals": "complete"},
        ],
    )
    def test_it_rejects_what_validation_rejects(self, expectation: dict) -> None:
        assert validate_expectations([expectation]) != []
        assert not self.validator.is_valid([expectation])


class ArgsTypeTests:
    def test_args_must_be_an_object(self) -> None:
        assert validate_expectations([{"kind": "tool_called", "tool": "a", "args": [1]}]) == [
            "expectations[0].args: expected an object of expected arguments, got [1]"
        ]
