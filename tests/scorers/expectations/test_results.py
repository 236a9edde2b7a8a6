from __future__ import annotations

from tests.scorers.expectations.helpers import check, diff
from tests.scorers.expectations.records import call, record, result, travel_record, weather_call

TEMPERATURE = {"kind": "tool_result", "tool": "get_weather", "path": "$.structuredContent.temperature"}


class ToolResultTests:
    def test_equals(self) -> None:
        outcome = check(TEMPERATURE | {"equals": 21.5}, travel_record())
        assert outcome.passed
        assert outcome.expected == "get_weather returned structuredContent.temperature = 21.5"
        assert outcome.actual == "call 1 (get_weather) returned structuredContent.temperature = 21.5"
        assert diff(check(TEMPERATURE | {"equals": 19}, travel_record())) == [
            ("result_mismatch", "structuredContent.temperature: expected 19, got 21.5", 0)
        ]

    def test_equals_accepts_matchers(self) -> None:
        outcome = check(TEMPERATURE | {"equals": {"$range": [-50, 60]}}, travel_record())
        assert outcome.passed
        assert outcome.expected == "get_weather returned structuredContent.temperature in [-50, 60]"

    def test_equals_is_exact_on_objects(self) -> None:
        expectation = {"kind": "tool_result", "tool": "get_weather", "path": "structuredContent"}
        assert diff(check(expectation | {"equals": {"temperature": 21.5}}, travel_record())) == [
            ("result_mismatch", 'structuredContent: extra key "unit"', 0)
        ]

    def test_contains_in_the_text_content(self) -> None:
        expectation = {"kind": "tool_result", "tool": "get_weather", "path": "content[0].text"}
        assert check(expectation | {"contains": "Sunny"}, travel_record()).passed
        assert diff(check(expectation | {"contains": "Rain"}, travel_record())) == [
            (
                "result_mismatch",
                'content[0].text: expected a string containing "Rain", got "{\\"temperature\\": 21.5, '
                '\\"condition\\": \\"Sunny\\"}"',
                0,
            )
        ]

    def test_regex(self) -> None:
        expectation = {"kind": "tool_result", "tool": "search_flights", "path": "$.structuredContent.flights[0].flight"}
        assert check(expectation | {"regex": "^AF\\d+$"}, travel_record()).passed
        assert diff(check(expectation | {"regex": "^BA"}, travel_record())) == [
            ("result_mismatch", 'structuredContent.flights[0].flight: expected a string matching ^BA, got "AF006"', 1)
        ]

    def test_json_schema_on_structured_content(self) -> None:
        schema = {"type": "object", "required": ["temperature", "humidity"]}
        expectation = {"kind": "tool_result", "tool": "get_weather", "path": "$.structuredContent"}
        assert check(expectation | {"json_schema": {"required": ["temperature"]}}, travel_record()).passed
        assert diff(check(expectation | {"json_schema": schema}, travel_record())) == [
            ("result_mismatch", "structuredContent: 'humidity' is a required property", 0)
        ]

    def test_json_schema_parses_json_text(self) -> None:
        expectation = {"kind": "tool_result", "tool": "get_weather", "path": "content[0].text"}
        schema = {"type": "object", "properties": {"temperature": {"type": "string"}}}
        assert check(expectation | {"json_schema": {"type": "object"}}, travel_record()).passed
        assert diff(check(expectation | {"json_schema": schema}, travel_record())) == [
            ("result_mismatch", "content[0].text: 21.5 is not of type 'string' (at $.temperature)", 0)
        ]
        not_json = record([call("get_weather", {}, result("Sunny"))])
        assert diff(check(expectation | {"json_schema": schema}, not_json)) == [
            ("result_mismatch", 'content[0].text: expected JSON text, got "Sunny"', 0)
        ]

    def test_a_missing_path(self) -> None:
        outcome = check(
            {"kind": "tool_result", "tool": "get_weather", "path": "$.structuredContent.wind", "equals": 3},
            travel_record(),
        )
        assert outcome.actual == "call 1 (get_weather) returned no structuredContent.wind"
        assert diff(outcome) == [("result_mismatch", "structuredContent.wind: missing", 0)]

    def test_the_nth_call(self) -> None:
        run = record([weather_call(), call("get_weather", {}, result("x", structured={"temperature": 9}))])
        outcome = check(TEMPERATURE | {"call": {"nth": 2}, "equals": 9}, run)
        assert outcome.passed
        assert outcome.expected == "get_weather returned structuredContent.temperature = 9 on its 2nd call"
        assert diff(check(TEMPERATURE | {"call": {"nth": 3}, "equals": 9}, run)) == [
            ("missing_call", "get_weather was called 2 times, so it has no 3rd call", None)
        ]

    def test_a_tool_never_called(self) -> None:
        outcome = check(TEMPERATURE | {"equals": 1}, record([]))
        assert diff(outcome) == [("missing_call", "get_weather was never called", None)]

    def test_the_whole_result(self) -> None:
        outcome = check({"kind": "tool_result", "tool": "get_weather", "equals": {"$type": "object"}}, travel_record())
        assert outcome.passed
        assert outcome.expected == "get_weather returned result of type object"


ANSWER = "It is sunny in Paris (21.5 °C). The cheapest flight to New York is AF006."


class FinalAnswerTests:
    def outcome(self, **check_: object) -> tuple[bool, list[tuple[str, str, int | None]]]:
        result_ = check({"kind": "final_answer", **check_}, travel_record(answer=ANSWER))
        return result_.passed, diff(result_)

    def test_contains(self) -> None:
        assert self.outcome(contains="AF006") == (True, [])
        assert self.outcome(contains="paris") == (False, [("answer_mismatch", 'answer does not contain "paris"', None)])

    def test_icontains(self) -> None:
        assert self.outcome(icontains="PARIS") == (True, [])
        assert self.outcome(icontains="lyon") == (
            False,
            [("answer_mismatch", 'answer does not contain "lyon" in any case', None)],
        )

    def test_not_contains(self) -> None:
        assert self.outcome(not_contains="sorry") == (True, [])
        assert self.outcome(not_contains="sunny") == (False, [("answer_mismatch", 'answer contains "sunny"', None)])

    def test_regex(self) -> None:
        assert self.outcome(regex=r"\d+(\.\d+)? °C") == (True, [])
        assert self.outcome(regex="^Yes") == (False, [("answer_mismatch", "answer does not match ^Yes", None)])

    def test_equals_ignores_surrounding_whitespace(self) -> None:
        run = travel_record(answer="  42\n")
        assert check({"kind": "final_answer", "equals": "42"}, run).passed
        assert diff(check({"kind": "final_answer", "equals": "41"}, run)) == [
            ("answer_mismatch", 'answer is "42", expected "41"', None)
        ]

    def test_starts_with(self) -> None:
        assert self.outcome(starts_with="It is sunny") == (True, [])
        assert self.outcome(starts_with="Sunny") == (
            False,
            [("answer_mismatch", 'answer starts with "It is sunny in…", expected "Sunny"', None)],
        )

    def test_is_json(self) -> None:
        assert check({"kind": "final_answer", "is_json": True}, travel_record(answer='{"city": "Paris"}')).passed
        assert self.outcome(is_json=True) == (
            False,
            [("answer_mismatch", "answer is not JSON: Expecting value: line 1 column 1 (char 0)", None)],
        )

    def test_json_schema(self) -> None:
        run = travel_record(answer='{"city": "Paris", "temperature": 21.5}')
        schema = {"type": "object", "required": ["city", "flight"]}
        assert check({"kind": "final_answer", "json_schema": {"required": ["city"]}}, run).passed
        assert diff(check({"kind": "final_answer", "json_schema": schema}, run)) == [
            ("answer_mismatch", "answer JSON does not match the schema: 'flight' is a required property", None)
        ]

    def test_descriptions(self) -> None:
        outcome = check({"kind": "final_answer", "icontains": "paris"}, travel_record(answer=ANSWER))
        assert outcome.expected == 'final answer contains "paris" in any case'
        assert outcome.actual == f'answer: "{ANSWER}"'

    def test_no_answer(self) -> None:
        outcome = check({"kind": "final_answer", "contains": "Paris"}, travel_record(answer=""))
        assert outcome.actual == "no answer"

    def test_turn_checks_that_turns_last_text(self) -> None:
        steps = [
            {"userTurn": 1, "text": "Sunny, 21.5 °C."},
            {"userTurn": 2, "text": "AF006 at 512 €."},
        ]
        run = record([], "AF006 at 512 €.", steps=steps)
        assert check({"kind": "final_answer", "contains": "Sunny", "turn": 1}, run).passed
        assert not check({"kind": "final_answer", "contains": "Sunny", "turn": 2}, run).passed
