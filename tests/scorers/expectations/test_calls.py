from __future__ import annotations

from tests.scorers.expectations.helpers import check, diff
from tests.scorers.expectations.records import (
    call,
    flights_call,
    record,
    result,
    run_info,
    travel_record,
    weather_call,
)


class ToolNotCalledTests:
    def test_it_passes_when_the_tool_was_not_called(self) -> None:
        outcome = check({"kind": "tool_not_called", "tool": "book_flight"}, travel_record())
        assert outcome.passed
        assert outcome.expected == "book_flight not called"

    def test_it_reports_each_forbidden_call(self) -> None:
        run = record([weather_call(), call("book_flight", {"flight": "AF006"}), call("book_flight", {})])
        outcome = check({"kind": "tool_not_called", "tools": ["book_flight", "delete_account"]}, run)
        assert outcome.expected == "none of book_flight, delete_account called"
        assert outcome.actual == "book_flight called 2 times"
        assert diff(outcome) == [
            ("unexpected_call", "book_flight was called (call 2)", 1),
            ("unexpected_call", "book_flight was called (call 3)", 2),
        ]


class OnlyToolsTests:
    def test_it_passes_within_the_list(self) -> None:
        expectation = {"kind": "only_tools", "tools": ["get_weather", "search_flights", "book_flight"]}
        outcome = check(expectation, travel_record())
        assert outcome.passed
        assert outcome.actual == "called: get_weather, search_flights"

    def test_it_reports_calls_outside_the_list(self) -> None:
        outcome = check({"kind": "only_tools", "tools": ["get_weather"]}, travel_record())
        assert outcome.expected == "only get_weather called"
        assert diff(outcome) == [("unexpected_call", "search_flights is not an allowed tool (call 2)", 1)]


class ToolSequenceTests:
    def test_in_order_allows_calls_in_between(self) -> None:
        run = record([weather_call(), call("get_time", {}), flights_call()])
        outcome = check({"kind": "tool_sequence", "tools": ["get_weather", "search_flights"]}, run)
        assert outcome.passed
        assert outcome.expected == "tools called in order get_weather → search_flights"
        assert outcome.actual == "called: get_weather → get_time → search_flights"

    def test_in_order_explains_a_call_made_too_early(self) -> None:
        outcome = check({"kind": "tool_sequence", "tools": ["search_flights", "get_weather"]}, travel_record())
        assert diff(outcome) == [
            ("out_of_order", "get_weather expected after search_flights (call 2) but only called before it (call 1)", 0)
        ]

    def test_in_order_explains_a_missing_call(self) -> None:
        expectation = {"kind": "tool_sequence", "tools": ["get_weather", "search_flights", "book_flight"]}
        outcome = check(expectation, travel_record())
        assert diff(outcome) == [("missing_call", "book_flight was never called (expected after search_flights)", None)]
        first_missing = check({"kind": "tool_sequence", "tools": ["book_flight"]}, travel_record())
        assert diff(first_missing) == [("missing_call", "book_flight was never called", None)]

    def test_exact_pins_the_whole_list(self) -> None:
        expectation = {"kind": "tool_sequence", "tools": ["get_weather", "search_flights"], "mode": "exact"}
        assert check(expectation, travel_record()).passed
        assert check(expectation, travel_record()).expected == "tools called exactly as get_weather → search_flights"

    def test_exact_explains_where_the_order_broke(self) -> None:
        swapped = {"kind": "tool_sequence", "tools": ["search_flights", "get_weather"], "mode": "exact"}
        assert diff(check(swapped, travel_record())) == [
            ("out_of_order", "position 1: expected search_flights, got get_weather", 0)
        ]
        other = {"kind": "tool_sequence", "tools": ["get_weather", "book_flight"], "mode": "exact"}
        assert diff(check(other, travel_record())) == [
            ("unexpected_call", "position 2: expected book_flight, got search_flights", 1)
        ]
        longer = {"kind": "tool_sequence", "tools": ["get_weather", "search_flights", "book_flight"], "mode": "exact"}
        assert diff(check(longer, travel_record())) == [
            ("missing_call", "position 3: expected book_flight, but no more tools were called", None)
        ]
        shorter = {"kind": "tool_sequence", "tools": ["get_weather"], "mode": "exact"}
        assert diff(check(shorter, travel_record())) == [
            ("unexpected_call", "position 2: extra call to search_flights", 1)
        ]


class NoRedundantCallsTests:
    def test_it_passes_when_arguments_differ(self) -> None:
        run = record([weather_call(), weather_call({"latitude": 40.71, "longitude": -74.0})])
        outcome = check({"kind": "no_redundant_calls"}, run)
        assert outcome.passed
        assert outcome.expected == "no tool called twice with the same arguments"

    def test_it_reports_repeats_with_canonical_arguments(self) -> None:
        # Same arguments in another key order, and 2.0 for 2: still the same call.
        run = record(
            [
                flights_call({"origin": "PAR", "destination": "NYC", "passengers": 2}),
                flights_call({"passengers": 2.0, "destination": "NYC", "origin": "PAR"}),
            ]
        )
        outcome = check({"kind": "no_redundant_calls"}, run)
        assert outcome.actual == "1 repeated call"
        assert diff(outcome) == [("unexpected_call", "search_flights repeated with the same arguments as call 1", 1)]

    def test_allowance_tolerates_repeats(self) -> None:
        run = record([weather_call(), weather_call(), weather_call()])
        assert not check({"kind": "no_redundant_calls", "allowance": 1}, run).passed
        outcome = check({"kind": "no_redundant_calls", "allowance": 2}, run)
        assert outcome.passed
        assert outcome.expected == "at most 2 repeated calls with the same arguments"


class MaxToolCallsTests:
    def test_it_counts_nested_calls(self) -> None:
        run = record([call("run_code", {"code": "..."})], nested=[weather_call(), flights_call()])
        assert check({"kind": "max_tool_calls", "max": 3}, run).passed
        outcome = check({"kind": "max_tool_calls", "max": 2}, run)
        assert outcome.expected == "at most 2 tool calls"
        assert diff(outcome) == [("budget_exceeded", "3 tool calls, at most 2 allowed", 2)]


class NoToolErrorsTests:
    def test_it_passes_without_errors(self) -> None:
        outcome = check({"kind": "no_tool_errors"}, travel_record())
        assert outcome.passed
        assert outcome.actual == "calls 1 and 2: none errored"
        many = record([weather_call(), flights_call(), weather_call(), flights_call()])
        assert check({"kind": "no_tool_errors"}, many).actual == "4 calls, none errored"

    def test_it_reports_each_error_with_its_message(self) -> None:
        failing = result("Unknown airport: XXX", is_error=True)
        run = record([weather_call(), call("search_flights", {"origin": "XXX"}, failing)])
        outcome = check({"kind": "no_tool_errors"}, run)
        assert outcome.actual == "1 of 2 calls errored"
        assert diff(outcome) == [
            ("result_mismatch", 'call 2 (search_flights) returned an error: "Unknown airport: XXX"', 1)
        ]


class StructuredOutputValidTests:
    def test_calls_without_schema_validation_are_skipped(self) -> None:
        outcome = check({"kind": "structured_output_valid"}, travel_record())
        assert outcome.passed
        assert outcome.actual == "no call had an output schema to check"

    def test_it_reports_the_invalid_call_and_its_message(self) -> None:
        run = record(
            [
                weather_call(schema_validation={"valid": True, "message": ""}),
                flights_call(
                    schema_validation={"valid": False, "message": "flights[0]: 'price' is a required property"}
                ),
                call("get_time", {}),
            ]
        )
        outcome = check({"kind": "structured_output_valid"}, run)
        assert not outcome.passed
        assert outcome.actual == "1 of 2 structured outputs invalid"
        assert diff(outcome) == [
            ("result_mismatch", "call 2 (search_flights): flights[0]: 'price' is a required property", 1)
        ]


class CodeModeTests:
    """In code mode the agent's one tool is run_code; expectations count the server's tools its programs called."""

    def code_mode_record(self, *, tool_mode: str = "code") -> dict[str, object]:
        program = call("run_code", {"code": "return await tools.get_weather({latitude: 48.85, longitude: 2.35})"})
        return record([program], nested=[weather_call()], run=run_info(toolMode=tool_mode))

    def test_only_tools_and_max_tool_calls_see_the_programs_calls(self) -> None:
        run = self.code_mode_record()
        assert check({"kind": "only_tools", "tools": ["get_weather"]}, run).passed
        assert check({"kind": "max_tool_calls", "max": 1}, run).passed
        assert diff(check({"kind": "tool_not_called", "tool": "get_weather"}, run)) == [
            ("unexpected_call", "get_weather was called (call 1.1)", 1)
        ]
        # Named as the run page labels it (the program is call 1), not counted as "1 call".
        assert check({"kind": "no_tool_errors"}, run).actual == "call 1.1: none errored"

    def test_a_direct_run_with_a_tool_named_run_code_still_counts_it(self) -> None:
        run = self.code_mode_record(tool_mode="direct")
        assert not check({"kind": "only_tools", "tools": ["get_weather"]}, run).passed
