from __future__ import annotations

from typing import Any

from runs.experiments.divergence import ArgumentChange, ToolCall, first_divergence, render_call


def _mcp(text: str, *, is_error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": is_error}


def _call(name: str, args: dict[str, Any], result: str = "ok", *, text: str = "") -> dict[str, Any]:
    """A step that calls one tool and got its result, as the recorder writes it."""
    return {
        "text": text,
        "finishReason": "tool-calls",
        "toolCalls": [{"toolName": name, "args": args}],
        "toolResults": [{"toolName": name, "result": _mcp(result)}],
    }


def _interrupted(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """A step whose tool call never got its result: the run failed during it."""
    return {
        "text": "",
        "finishReason": "tool-calls",
        "toolCalls": [{"toolName": name, "args": args}],
        "toolResults": [],
    }


def _answer(text: str) -> dict[str, Any]:
    return {"text": text, "finishReason": "stop"}


PARIS = {"latitude": 48.85, "longitude": 2.35}
SEARCH = _call("search_flights", {"origin": "PAR", "destination": "JFK", "date": "2025-06-01", "seats": 2}, "3 found")
WEATHER = _call("get_weather", PARIS, "Sunny, 24 °C")
BOOK = _call("book_flight", {"flight_id": "AF123"}, "Booked")
ANSWER = _answer("It is sunny in Paris.")


class SamePathTests:
    def test_identical_runs(self) -> None:
        steps = [SEARCH, WEATHER, ANSWER]
        result = first_divergence(steps, steps)
        assert result.first_index is None
        assert result.explanation == "The runs took the same path."
        assert len(result.pairs) == 3
        assert not any(pair.differs or pair.splits for pair in result.pairs)
        assert result.pairs[0].baseline == result.pairs[0].candidate
        assert result.pairs[0].baseline is not None and result.pairs[0].baseline.number == 1

    def test_two_empty_runs(self) -> None:
        result = first_divergence([], [])
        assert (result.pairs, result.first_index, result.explanation) == ((), None, "The runs took the same path.")

    def test_argument_order_and_missing_arguments_do_not_matter(self) -> None:
        baseline = [_call("get_weather", {"latitude": 48.85, "longitude": 2.35}), {"toolCalls": [{"toolName": "now"}]}]
        candidate = [
            _call("get_weather", {"longitude": 2.35, "latitude": 48.85}),
            {"toolCalls": [{"toolName": "now", "args": None}]},
        ]
        assert first_divergence(baseline, candidate).first_index is None


class ModelTextTests:
    def test_wording_before_the_same_tool_call_is_noise(self) -> None:
        baseline = [_call("get_weather", PARIS, "Sunny, 24 °C", text="Let me check the weather."), ANSWER]
        candidate = [_call("get_weather", PARIS, "Sunny, 24 °C", text="I'll look up the weather now."), ANSWER]
        result = first_divergence(baseline, candidate)
        assert result.first_index is None
        assert result.explanation == "The runs took the same path."
        # Still listed, so the view can show it, but not a difference that counts.
        assert result.pairs[0].parts == {"text"}
        assert not result.pairs[0].differs

    def test_different_final_answers_diverge(self) -> None:
        result = first_divergence([WEATHER, ANSWER], [WEATHER, _answer("It is raining in Paris.")])
        assert result.first_index == 1
        assert result.pairs[1].splits and result.pairs[1].parts == {"text"}
        assert (
            result.explanation
            == 'Step 2: the final answers differ: "It is sunny in Paris." → "It is raining in Paris.".'
        )

    def test_final_answers_differing_only_in_spacing_are_the_same(self) -> None:
        result = first_divergence([_answer("It is  sunny.\n")], [_answer("It is sunny.")])
        assert result.first_index is None

    def test_an_answer_where_the_other_called_a_tool(self) -> None:
        result = first_divergence([WEATHER, ANSWER], [WEATHER, BOOK])
        assert result.first_index == 1
        assert result.pairs[1].parts == {"text", "tool"}
        assert result.explanation == (
            'Step 2: the baseline answered "It is sunny in Paris."; this run called book_flight(flight_id: "AF123").'
        )

    def test_long_answers_are_shortened(self) -> None:
        result = first_divergence([_answer("a" * 100)], [_answer("b")])
        assert result.explanation == f'Step 1: the final answers differ: "{"a" * 59}…" → "b".'


class DifferentToolTests:
    def test_a_different_tool_at_step_2(self) -> None:
        result = first_divergence([WEATHER, SEARCH, ANSWER], [WEATHER, BOOK, ANSWER])
        assert result.first_index == 1
        assert [pair.differs for pair in result.pairs] == [False, True, False]
        assert "tool" in result.pairs[1].parts
        assert result.explanation == (
            'Step 2: the baseline called search_flights(origin: "PAR", destination: "JFK", date: "2025-06-01", …); '
            'this run called book_flight(flight_id: "AF123").'
        )

    def test_several_calls_in_one_step(self) -> None:
        both = {
            "toolCalls": [{"toolName": "get_weather", "args": PARIS}, {"toolName": "get_time", "args": {}}],
            "toolResults": [{"toolName": "get_weather", "result": 1}, {"toolName": "get_time", "result": 2}],
        }
        result = first_divergence([both], [WEATHER])
        assert result.explanation == (
            "Step 1: the baseline called get_weather(latitude: 48.85, longitude: 2.35) and get_time(); "
            "this run called get_weather(latitude: 48.85, longitude: 2.35)."
        )


class DifferentArgumentsTests:
    def test_same_tool_with_a_different_argument(self) -> None:
        moved = _call("get_weather", {"latitude": 48.85, "longitude": 23.5}, "Sunny, 24 °C")
        result = first_divergence([SEARCH, BOOK, WEATHER], [SEARCH, BOOK, moved])
        assert result.first_index == 2
        assert result.pairs[2].parts == {"arguments"}
        assert result.pairs[2].changed_arguments == (ArgumentChange(0, "longitude", "2.35", "23.5"),)
        assert result.explanation == (
            "Step 3: same call get_weather(latitude: 48.85, …) but the arguments differ: longitude 2.35 → 23.5."
        )

    def test_nested_arguments(self) -> None:
        baseline = [_call("search_hotels", {"city": "Paris", "filters": {"max_price": 300, "stars": 4}})]
        candidate = [_call("search_hotels", {"city": "Paris", "filters": {"max_price": 400, "stars": 4, "pool": True}})]
        result = first_divergence(baseline, candidate)
        assert result.pairs[0].changed_arguments == (
            ArgumentChange(0, "filters.max_price", "300", "400"),
            ArgumentChange(0, "filters.pool", None, "true"),
        )
        assert result.explanation == (
            'Step 1: same call search_hotels(city: "Paris", …) but the arguments differ: '
            "filters.max_price 300 → 400, filters.pool (absent) → true."
        )

    def test_every_argument_changed_and_more_than_three(self) -> None:
        baseline = [_call("f", {"a": 1, "b": 2, "c": 3, "d": 4})]
        candidate = [_call("f", {"a": 9, "b": 9, "c": 9, "d": 9})]
        assert first_divergence(baseline, candidate).explanation == (
            "Step 1: same call f(…) but the arguments differ: a 1 → 9, b 2 → 9, c 3 → 9, …"
        )

    def test_a_dropped_argument_and_a_changed_type(self) -> None:
        baseline = [_call("f", {"query": "x", "limit": 10})]
        candidate = [_call("f", {"query": "x", "limit": "10"}), ANSWER]
        result = first_divergence(baseline, candidate)
        assert result.explanation == 'Step 1: same call f(query: "x", …) but the arguments differ: limit 10 → "10".'
        dropped = first_divergence(baseline, [_call("f", {"query": "x"})])
        assert (
            dropped.explanation == 'Step 1: same call f(query: "x", …) but the arguments differ: limit 10 → (absent).'
        )


class OneSideLongerTests:
    def test_this_run_went_further(self) -> None:
        result = first_divergence([SEARCH, WEATHER, ANSWER], [SEARCH, WEATHER, ANSWER, BOOK])
        assert result.first_index == 3
        assert result.pairs[3].baseline is None and result.pairs[3].differs
        assert result.explanation == (
            'The baseline stopped after step 3; this run went on to step 4: called book_flight(flight_id: "AF123").'
        )

    def test_the_baseline_went_further(self) -> None:
        result = first_divergence([SEARCH, WEATHER, ANSWER], [SEARCH, WEATHER])
        assert result.first_index == 2
        assert result.pairs[2].candidate is None
        assert result.explanation == (
            'This run stopped after step 2; the baseline went on to step 3: answered "It is sunny in Paris.".'
        )

    def test_one_run_took_no_steps(self) -> None:
        assert first_divergence([], [ANSWER]).explanation == (
            'The baseline took no steps; this run took step 1: answered "It is sunny in Paris.".'
        )
        assert first_divergence([BOOK], []).explanation == (
            'This run took no steps; the baseline took step 1: called book_flight(flight_id: "AF123").'
        )


class ErrorTests:
    def test_this_run_failed_before_its_next_model_call(self) -> None:
        result = first_divergence([SEARCH, WEATHER, ANSWER], [SEARCH], candidate_error="Rate limited by the provider.")
        assert result.first_index == 1
        assert result.pairs[1].candidate is None and result.pairs[1].candidate_error == "Rate limited by the provider."
        assert result.pairs[1].parts == {"error"}
        assert result.explanation == "Step 2: this run ended with an error: Rate limited by the provider."
        assert len(result.pairs) == 3

    def test_this_run_failed_during_a_tool_call(self) -> None:
        result = first_divergence(
            [SEARCH, WEATHER, ANSWER],
            [SEARCH, _interrupted("get_weather", PARIS)],
            candidate_error="The MCP server closed the connection",
        )
        assert result.first_index == 1
        # The missing result is the error's doing, not a different answer from the server.
        assert result.pairs[1].parts == {"error"}
        assert result.explanation == "Step 2: this run ended with an error: The MCP server closed the connection."

    def test_the_baseline_failed(self) -> None:
        result = first_divergence([SEARCH], [SEARCH, WEATHER, ANSWER], baseline_error="Timed out")
        assert result.explanation == "Step 2: the baseline ended with an error: Timed out."

    def test_both_failed_differently(self) -> None:
        result = first_divergence([SEARCH], [SEARCH], baseline_error="Timed out", candidate_error="Rate limited")
        assert result.first_index == 1
        assert result.explanation == "Step 2: both runs ended with an error: Timed out → Rate limited."

    def test_both_failed_the_same_way(self) -> None:
        result = first_divergence([SEARCH], [SEARCH], baseline_error="Timed out", candidate_error="Timed out")
        assert result.first_index is None
        assert result.explanation == "The runs took the same path and both ended with an error: Timed out."

    def test_a_different_call_before_the_error_comes_first(self) -> None:
        result = first_divergence(
            [SEARCH, WEATHER], [SEARCH, _interrupted("book_flight", {"flight_id": "AF123"})], candidate_error="Boom"
        )
        assert result.first_index == 1
        assert result.pairs[1].candidate_error == "Boom"
        assert result.explanation == (
            "Step 2: the baseline called get_weather(latitude: 48.85, longitude: 2.35); "
            'this run called book_flight(flight_id: "AF123").'
        )

    def test_long_errors_are_shortened(self) -> None:
        result = first_divergence([], [], candidate_error="x" * 500)
        assert result.explanation == f"Step 1: this run ended with an error: {'x' * 199}…"


class ToolResultTests:
    def test_a_different_result_explains_a_later_split(self) -> None:
        baseline = [_call("search_flights", {"origin": "PAR"}, "3 flights found"), BOOK]
        candidate = [_call("search_flights", {"origin": "PAR"}, "No flights found"), _answer("Sorry, none.")]
        result = first_divergence(baseline, candidate)
        assert result.first_index == 0
        assert result.pairs[0].parts == {"result"} and result.pairs[0].differs and not result.pairs[0].splits
        assert result.explanation == (
            'Step 1: same call search_flights(origin: "PAR"), different result: "3 flights found" → "No flights found".'
        )

    def test_results_alone_do_not_make_the_paths_diverge(self) -> None:
        result = first_divergence(
            [SEARCH, _call("now", {}, "10:00"), ANSWER], [SEARCH, _call("now", {}, "10:01"), ANSWER]
        )
        assert result.first_index is None
        assert result.pairs[1].differs
        assert result.explanation == "The runs took the same path; only tool results differed, first at step 2."

    def test_error_results_and_structured_results(self) -> None:
        failed = [_call("f", {}), BOOK]
        failed[0] = {**failed[0], "toolResults": [{"toolName": "f", "result": _mcp("Bad input", is_error=True)}]}
        structured = [{**_call("f", {}), "toolResults": [{"toolName": "f", "result": {"count": 3}}]}, ANSWER]
        assert first_divergence(failed, structured).explanation == (
            'Step 1: same call f(), different result: error "Bad input" → {"count":3}.'
        )


class RenderCallTests:
    def test_long_values_are_cut(self) -> None:
        assert render_call(ToolCall("search", {"query": "x" * 50})) == f'search(query: "{"x" * 28}…)'

    def test_at_most_three_arguments(self) -> None:
        call = ToolCall("f", {"a": 1, "b": [1, 2], "c": {"d": None}, "e": True})
        assert render_call(call) == 'f(a: 1, b: [1, 2], c: {"d": null}, …)'

    def test_only_some_arguments(self) -> None:
        assert render_call(ToolCall("f", {"a": 1, "b": 2}), only=["b"]) == "f(b: 2, …)"
        assert render_call(ToolCall("f", {}), only=[]) == "f()"
