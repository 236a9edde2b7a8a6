from __future__ import annotations

from scorers.expectations import evaluate_expectations, propose_expectations, validate_expectations
from tests.scorers.expectations.records import (
    call,
    flights_call,
    record,
    result,
    run_info,
    travel_record,
    weather_call,
)


class ProposeExpectationsTests:
    def test_it_describes_what_the_run_did(self) -> None:
        assert propose_expectations(travel_record()) == [
            {"kind": "tool_called", "tool": "get_weather", "args": {"latitude": 48.85, "longitude": 2.35}},
            {"kind": "tool_called", "tool": "search_flights", "args": {"origin": "PAR", "destination": "NYC"}},
            {"kind": "tool_sequence", "tools": ["get_weather", "search_flights"], "mode": "in_order"},
            {"kind": "no_tool_errors"},
            {"kind": "max_tool_calls", "max": 2},
            {"kind": "stop_reason", "equals": "completed"},
        ]

    def test_a_multi_step_run_scores_one_on_its_own_proposal(self) -> None:
        run = record(
            [
                weather_call(),
                flights_call({"origin": "PAR", "destination": "NYC", "filters": {"stops": 0, "cabins": ["eco"]}}),
                weather_call({"latitude": 40.71, "longitude": -74.0}),
                flights_call(),
                call("book_flight", {"flight": "AF006", "passengers": 1.0}),
            ],
            nested=[call("sql_query", {"query": "select 1", "options": {"$ref": "#/x"}})],
        )
        proposal = propose_expectations(run)
        assert validate_expectations(proposal) == []
        result_ = evaluate_expectations(proposal, run)
        assert result_.score == 1.0, result_.reason
        assert [p["kind"] for p in proposal].count("tool_called") == 4
        assert {"kind": "max_tool_calls", "max": 6} in proposal

    def test_an_object_that_reads_as_a_matcher_stays_literal(self) -> None:
        run = record([call("sql_query", {"options": {"$ref": "#/x"}})])
        assert propose_expectations(run)[0]["args"] == {"options": {"$oneOf": [{"$ref": "#/x"}]}}

    def test_errors_and_abnormal_stops_are_left_out(self) -> None:
        run = record(
            [weather_call(), call("search_flights", {}, result("boom", is_error=True))],
            run=run_info(stopReason="max_turns"),
        )
        kinds = [p["kind"] for p in propose_expectations(run)]
        assert "no_tool_errors" not in kinds
        assert "stop_reason" not in kinds
        assert evaluate_expectations(propose_expectations(run), run).score == 1.0

    def test_a_run_without_calls(self) -> None:
        assert propose_expectations(record([], "Where would you like to fly from?")) == [
            {"kind": "max_tool_calls", "max": 0},
            {"kind": "stop_reason", "equals": "completed"},
        ]
