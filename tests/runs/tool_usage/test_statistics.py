"""The confusion matrix, argument errors and per-tool statistics on a fixture of runs with known answers."""

from __future__ import annotations

from runs.tool_usage.arguments import ArgumentError, argument_errors
from runs.tool_usage.confusion import NOT_CALLED, confusion_matrix
from runs.tool_usage.facts import run_facts
from runs.tool_usage.stats import BAD_ARGUMENTS, NEVER_CALLED, WRONG_TOOL, never_called, tool_stats
from tests.runs.tool_usage.fixture import NAMES, TOOLS, fixture_runs


class ConfusionTests:
    def test_expected_against_called_with_the_runs_behind_each_count(self) -> None:
        matrix = confusion_matrix(fixture_runs())

        assert matrix.counts == {
            ("get_weather", "get_weather"): 3,  # runs 1, 4, 7
            ("get_weather", "search_flights"): 1,  # run 2
            ("get_weather", NOT_CALLED): 1,  # run 3
            ("search_flights", "search_flights"): 2,  # runs 5, 6
            ("book_flight", "book_flight"): 1,  # run 5
            ("book_flight", NOT_CALLED): 1,  # run 6: only another expected tool was called
        }
        assert matrix.runs[("get_weather", "get_weather")] == [1, 4, 7]
        assert matrix.runs[("get_weather", "search_flights")] == [2]
        assert matrix.confused == 3
        assert matrix.expected == ["book_flight", "get_weather", "search_flights"]
        assert matrix.called == ["book_flight", "get_weather", "search_flights", NOT_CALLED]
        weather_row = dict(matrix.rows())["get_weather"]
        assert [(called, count) for called, count, _ in weather_row] == [
            ("book_flight", 0),
            ("get_weather", 3),
            ("search_flights", 1),
            (NOT_CALLED, 1),
        ]


class ArgumentErrorTests:
    def test_each_argument_gets_its_reason(self) -> None:
        schema = TOOLS[0]["inputSchema"]
        assert argument_errors({"latitude": 95, "longitude": "east"}, schema) == [
            ArgumentError("latitude", "out of range"),
            ArgumentError("longitude", "wrong type"),
        ]
        assert argument_errors({"longitude": 2}, schema) == [ArgumentError("latitude", "missing")]
        assert argument_errors({"latitude": 1, "longitude": 2}, schema) == []

    def test_unknown_arguments_and_an_invalid_schema(self) -> None:
        assert argument_errors({"origin": "CDG", "seats": 2}, TOOLS[2]["inputSchema"]) == [
            ArgumentError("passengers", "missing"),
            ArgumentError("seats", "unknown"),
        ]
        assert argument_errors({"a": 1}, {"type": "object", "properties": {"a": {"type": 12}}}) == []


class ToolStatsTests:
    def test_per_tool_figures(self) -> None:
        stats = {row.name: row for row in tool_stats(fixture_runs(), NAMES)}

        assert list(stats) == NAMES
        weather = stats["get_weather"]
        # Calls in runs 1, 4, 7 and 8; run 4 and run 8 the server answered with an error.
        assert (weather.calls, weather.errors, weather.error_rate) == (4, 2, 0.5)
        assert (weather.argument_error_calls, weather.argument_error_rate) == (2, 0.5)
        assert weather.argument_errors == {
            "latitude": {"out of range": 1},
            "longitude": {"wrong type": 1},
            "(arguments)": {"not a JSON object": 1},
        }
        assert weather.scenarios == {"Weather", "Free"}
        assert weather.failure_modes == [(BAD_ARGUMENTS, 2), (NEVER_CALLED, 1), (WRONG_TOOL, 1)]
        search = stats["search_flights"]
        assert (search.calls, search.errors, search.argument_error_calls, search.scenarios) == (
            3,
            0,
            0,
            {"Weather", "Book"},
        )
        booking = stats["book_flight"]
        assert (booking.calls, booking.errors, booking.never_called, booking.wrong_tool) == (1, 1, 1, 0)
        assert booking.argument_error_lines == ["passengers: missing 1", "seats: unknown 1"]
        assert stats["cancel_booking"].calls == 0 and stats["cancel_booking"].error_rate is None

    def test_coverage_lists_the_tools_no_run_called(self) -> None:
        assert never_called(fixture_runs(), NAMES) == ["cancel_booking"]

    def test_a_call_evalhub_refused_is_not_the_servers_error(self) -> None:
        refused = {"toolName": "get_weather", "args": {}, "isError": True, "refused": "invalid_arguments"}
        failed = {"toolName": "get_weather", "args": {}, "isError": True}
        facts = run_facts(run_id=1, scenario="Weather", expected_tools=[], all_tool_calls=[refused, failed])

        weather = {row.name: row for row in tool_stats([facts], NAMES)}["get_weather"]

        assert (weather.calls, weather.errors) == (2, 1)
