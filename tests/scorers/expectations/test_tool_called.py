from __future__ import annotations

from scorers.expectations import describe
from tests.scorers.expectations.helpers import check, diff
from tests.scorers.expectations.records import PARIS, call, flights_call, record, travel_record, weather_call

COORDINATES = {"latitude": {"$range": [-90, 90]}, "longitude": {"$range": [-180, 180]}}


class ToolCalledTests:
    def test_it_passes_when_the_tool_was_called(self) -> None:
        outcome = check({"kind": "tool_called", "tool": "search_flights"}, travel_record())
        assert outcome.passed
        assert outcome.expected == "search_flights called"
        assert outcome.actual == "search_flights called as expected (call 2)"

    def test_it_fails_when_the_tool_was_never_called(self) -> None:
        outcome = check({"kind": "tool_called", "tool": "book_flight"}, travel_record())
        assert not outcome.passed
        assert outcome.actual == "book_flight was not called; called: get_weather, search_flights"
        assert diff(outcome) == [("missing_call", "book_flight was never called", None)]

    def test_it_says_when_no_tool_was_called(self) -> None:
        outcome = check({"kind": "tool_called", "tool": "get_weather"}, record([], "Where to?"))
        assert outcome.actual == "get_weather was not called; no tool was called"

    def test_it_matches_arguments_with_matchers(self) -> None:
        outcome = check({"kind": "tool_called", "tool": "get_weather", "args": COORDINATES}, travel_record())
        assert outcome.passed
        assert outcome.expected == "get_weather called with latitude in [-90, 90], longitude in [-180, 180]"

    def test_it_reports_each_mismatched_key_of_the_call(self) -> None:
        run = record([weather_call({"latitude": "48.85", "longitude": 2.35})])
        outcome = check({"kind": "tool_called", "tool": "get_weather", "args": COORDINATES}, run)
        assert not outcome.passed
        assert outcome.actual == "get_weather called 1 time; the checked call (call 1) had 1 mismatched argument"
        assert diff(outcome) == [("argument_mismatch", 'latitude: expected number in [-90, 90], got "48.85"', 0)]

    def test_it_reports_the_closest_call_when_none_matches(self) -> None:
        run = record(
            [
                flights_call({"origin": "LYS", "destination": "BOS"}),
                flights_call({"origin": "LYS", "destination": "NYC"}),
            ]
        )
        expectation = {"kind": "tool_called", "tool": "search_flights", "args": {"origin": "PAR", "destination": "NYC"}}
        outcome = check(expectation, run)
        assert outcome.actual == "search_flights called 2 times; the closest call (call 2) had 1 mismatched argument"
        assert diff(outcome) == [("argument_mismatch", 'origin: expected "PAR", got "LYS"', 1)]

    def test_it_reports_missing_arguments(self) -> None:
        expectation = {"kind": "tool_called", "tool": "search_flights", "args": {"origin": "PAR", "passengers": 1}}
        assert diff(check(expectation, travel_record())) == [("argument_mismatch", "passengers: missing", 1)]

    def test_partial_match_ignores_extra_arguments(self) -> None:
        expectation = {"kind": "tool_called", "tool": "search_flights", "args": {"origin": "PAR"}}
        assert check(expectation, travel_record()).passed

    def test_exact_match_refuses_extra_arguments(self) -> None:
        run = record([flights_call({"origin": "PAR", "destination": "NYC", "foo": True})])
        expectation = {"kind": "tool_called", "tool": "search_flights", "args": {"origin": "PAR", "destination": "NYC"}}
        assert check(expectation, run).passed
        outcome = check(expectation | {"match": "exact"}, run)
        assert diff(outcome) == [("argument_mismatch", 'extra key "foo"', 0)]
        assert outcome.expected == 'search_flights called with exactly origin = "PAR", destination = "NYC"'

    def test_exact_match_on_nested_objects_and_arrays(self) -> None:
        args = {"trip": {"legs": [{"origin": "PAR"}, {"origin": "NYC"}]}}
        run = record([call("plan_trip", {"trip": {"legs": [{"origin": "PAR", "day": 1}, {"origin": "NYC"}]}})])
        partial = {"kind": "tool_called", "tool": "plan_trip", "args": args}
        assert check(partial, run).passed
        assert diff(check(partial | {"match": "exact"}, run)) == [
            ("argument_mismatch", 'trip.legs[0]: extra key "day"', 0)
        ]

    def test_first_call_checks_only_the_first_call(self) -> None:
        run = record([weather_call({"latitude": 999, "longitude": 2.35}), weather_call()])
        expectation = {"kind": "tool_called", "tool": "get_weather", "args": COORDINATES}
        assert check(expectation, run).passed
        outcome = check(expectation | {"call": "first"}, run)
        assert not outcome.passed
        assert diff(outcome) == [("argument_mismatch", "latitude: expected number in [-90, 90], got 999", 0)]
        assert outcome.expected.endswith(" on its first call")

    def test_nth_call_counts_among_that_tools_calls(self) -> None:
        run = record([weather_call(), flights_call(), weather_call({"latitude": 40.71, "longitude": -74.0})])
        expectation = {"kind": "tool_called", "tool": "get_weather", "args": {"latitude": 40.71}, "call": {"nth": 2}}
        outcome = check(expectation, run)
        assert outcome.passed
        assert outcome.actual == "get_weather called as expected (call 3)"
        assert outcome.expected == "get_weather called with latitude = 40.71 on its 2nd call"
        assert not check(expectation | {"call": {"nth": 1}}, run).passed

    def test_nth_call_that_does_not_exist(self) -> None:
        outcome = check({"kind": "tool_called", "tool": "get_weather", "call": {"nth": 3}}, travel_record())
        assert outcome.expected == "get_weather called a 3rd time"
        assert diff(outcome) == [("missing_call", "get_weather was called 1 time, so it has no 3rd call", None)]


class ToolCalledCountTests:
    def run(self) -> dict:
        return record(
            [weather_call(), weather_call(), weather_call({"latitude": 40.71, "longitude": -74.0}), flights_call()]
        )

    def test_times(self) -> None:
        outcome = check({"kind": "tool_called", "tool": "get_weather", "times": 3}, self.run())
        assert outcome.passed
        assert outcome.expected == "get_weather called exactly 3 times"
        assert outcome.actual == "get_weather called 3 times"
        failing = check({"kind": "tool_called", "tool": "get_weather", "times": 2}, self.run())
        assert diff(failing) == [("unexpected_call", "get_weather called 3 times, expected exactly 2 times", 2)]

    def test_times_counts_calls_with_matching_arguments(self) -> None:
        expectation = {"kind": "tool_called", "tool": "get_weather", "args": PARIS, "times": 2}
        outcome = check(expectation, self.run())
        assert outcome.passed
        assert outcome.actual == "get_weather called 2 times with matching arguments (3 in all)"

    def test_at_least(self) -> None:
        assert check({"kind": "tool_called", "tool": "get_weather", "at_least": 3}, self.run()).passed
        outcome = check({"kind": "tool_called", "tool": "search_flights", "at_least": 2}, self.run())
        assert diff(outcome) == [("missing_call", "search_flights called 1 time, expected at least 2 times", None)]

    def test_at_least_shows_why_other_calls_did_not_count(self) -> None:
        expectation = {"kind": "tool_called", "tool": "get_weather", "args": PARIS, "at_least": 3}
        assert diff(check(expectation, self.run())) == [
            (
                "missing_call",
                "get_weather called 2 times with matching arguments, expected at least 3 times",
                None,
            ),
            ("argument_mismatch", "latitude: expected 48.85, got 40.71", 2),
            ("argument_mismatch", "longitude: expected 2.35, got -74.0", 2),
        ]

    def test_at_most(self) -> None:
        assert check({"kind": "tool_called", "tool": "search_flights", "at_most": 1}, self.run()).passed
        outcome = check({"kind": "tool_called", "tool": "get_weather", "at_most": 1}, self.run())
        assert diff(outcome) == [("unexpected_call", "get_weather called 3 times, expected at most 1 time", 1)]

    def test_at_most_zero_passes_without_calls(self) -> None:
        assert check({"kind": "tool_called", "tool": "book_flight", "at_most": 0}, self.run()).passed

    def test_between(self) -> None:
        expectation = {"kind": "tool_called", "tool": "get_weather", "at_least": 1, "at_most": 3}
        assert describe(expectation) == "get_weather called between 1 and 3 times"
        assert check(expectation, self.run()).passed


class NestedAndTurnTests:
    def test_nested_calls_count(self) -> None:
        run = record([call("run_code", {"code": "..."})], nested=[weather_call()])
        assert check({"kind": "tool_called", "tool": "get_weather", "args": PARIS}, run).passed

    def test_turn_scopes_to_the_calls_of_that_user_turn(self) -> None:
        steps = [
            {"userTurn": 1, "text": "", "toolCalls": [{"toolName": "get_weather", "args": PARIS}]},
            {"userTurn": 1, "text": "Sunny, 21.5 °C."},
            {"userTurn": 2, "text": "", "toolCalls": [{"toolName": "search_flights", "args": {}}]},
            {"userTurn": 2, "text": "AF006 at 512 €."},
        ]
        run = record([weather_call(), flights_call()], "AF006 at 512 €.", steps=steps)
        outcome = check({"kind": "tool_called", "tool": "search_flights", "turn": 1}, run)
        assert not outcome.passed
        assert outcome.expected == "turn 1: search_flights called"
        assert diff(outcome) == [("missing_call", "search_flights was never called in turn 1", None)]
        assert check({"kind": "tool_called", "tool": "search_flights", "turn": 2}, run).passed

    def test_a_calls_own_user_turn_wins(self) -> None:
        run = record([weather_call(user_turn=1), flights_call(user_turn=2)])
        assert not check({"kind": "tool_called", "tool": "get_weather", "turn": 2}, run).passed
        assert check({"kind": "tool_called", "tool": "get_weather", "turn": 1}, run).passed

    def test_nested_calls_belong_to_the_turn_of_their_parent(self) -> None:
        parent = call("run_code", {"code": "..."})
        steps = [{"userTurn": 2, "text": "", "toolCalls": [{"toolName": "run_code", "args": {"code": "..."}}]}]
        run = record([parent], "Done.", steps=steps, nested=[weather_call()])
        assert check({"kind": "tool_called", "tool": "get_weather", "turn": 2}, run).passed
        assert not check({"kind": "tool_called", "tool": "get_weather", "turn": 1}, run).passed

    def test_turn_is_ignored_when_the_run_records_no_turns(self) -> None:
        assert check({"kind": "tool_called", "tool": "search_flights", "turn": 1}, travel_record()).passed


class RecordShapeTests:
    def test_a_record_without_all_tool_calls_reads_tool_calls(self) -> None:
        run = travel_record()
        del run["output"]["allToolCalls"]
        assert check({"kind": "tool_called", "tool": "search_flights"}, run).passed

    def test_arguments_that_are_not_an_object(self) -> None:
        run = record([call("get_weather", None)])
        outcome = check({"kind": "tool_called", "tool": "get_weather", "args": {"latitude": 1}}, run)
        assert diff(outcome) == [("argument_mismatch", "expected an object, got null", 0)]
