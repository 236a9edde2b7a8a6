from __future__ import annotations

from tests.scorers.expectations.helpers import check, diff
from tests.scorers.expectations.records import run_info, travel_record


class StopReasonTests:
    def test_it_passes_on_the_expected_reason(self) -> None:
        outcome = check({"kind": "stop_reason", "equals": "completed"}, travel_record())
        assert outcome.passed
        assert outcome.expected == 'run stopped with "completed"'
        assert outcome.actual == 'stopped with "completed"'

    def test_a_limit_reached_is_a_budget_matter(self) -> None:
        run = travel_record(run=run_info(stopReason="max_turns"))
        assert diff(check({"kind": "stop_reason", "equals": "completed"}, run)) == [
            ("budget_exceeded", 'stopped with "max_turns", expected "completed"', None)
        ]

    def test_another_ending_is_an_answer_mismatch(self) -> None:
        run = travel_record(run=run_info(stopReason="error"))
        assert diff(check({"kind": "stop_reason", "equals": "completed"}, run)) == [
            ("answer_mismatch", 'stopped with "error", expected "completed"', None)
        ]

    def test_an_unrecorded_reason_fails(self) -> None:
        outcome = check({"kind": "stop_reason", "equals": "completed"}, travel_record(run={}))
        assert outcome.actual == "stop reason unknown"
        assert diff(outcome) == [("answer_mismatch", "the run recorded no stop reason", None)]


class BudgetTests:
    def test_tokens(self) -> None:
        outcome = check({"kind": "max_tokens_total", "max": 2000}, travel_record())
        assert outcome.passed
        assert outcome.expected == "at most 2,000 tokens in total"
        assert outcome.actual == "2,000 tokens"
        assert diff(check({"kind": "max_tokens_total", "max": 1500}, travel_record())) == [
            ("budget_exceeded", "2,000 tokens, over the budget of 1,500 tokens", None)
        ]

    def test_tokens_add_up_input_and_output_without_a_total(self) -> None:
        run = travel_record(run=run_info(usage={"inputTokens": 900, "outputTokens": 150}))
        assert check({"kind": "max_tokens_total", "max": 1000}, run).actual == "1,050 tokens"

    def test_cost(self) -> None:
        outcome = check({"kind": "max_cost_usd", "max": 0.05}, travel_record())
        assert outcome.passed
        assert outcome.expected == "cost at most $0.05"
        assert outcome.actual == "$0.0042"
        assert diff(check({"kind": "max_cost_usd", "max": 0.001}, travel_record())) == [
            ("budget_exceeded", "$0.0042, over the budget of $0.001", None)
        ]

    def test_a_decimal_string_cost_is_known(self) -> None:
        run = travel_record(run=run_info(costUsd="0.012300"))
        assert check({"kind": "max_cost_usd", "max": 0.05}, run).actual == "$0.0123"

    def test_an_unknown_cost_does_not_pass(self) -> None:
        outcome = check({"kind": "max_cost_usd", "max": 0.05}, travel_record(run=run_info(costUsd=None)))
        assert not outcome.passed
        reason = "cost unknown: a model's price is not known, so the budget of $0.05 cannot be checked"
        assert outcome.actual == reason
        assert diff(outcome) == [("budget_exceeded", reason, None)]

    def test_duration(self) -> None:
        assert (
            check({"kind": "max_duration_ms", "max": 30000}, travel_record()).expected == "run took at most 30,000 ms"
        )
        assert diff(check({"kind": "max_duration_ms", "max": 5000}, travel_record())) == [
            ("budget_exceeded", "5,400 ms, over the budget of 5,000 ms", None)
        ]
        unknown = check({"kind": "max_duration_ms", "max": 5000}, travel_record(run={}))
        assert unknown.actual == "duration unknown: the run recorded none, so the budget of 5,000 ms cannot be checked"

    def test_turns(self) -> None:
        assert check({"kind": "max_turns", "max": 3}, travel_record()).passed
        outcome = check({"kind": "max_turns", "max": 1}, travel_record())
        assert outcome.expected == "at most 1 turn"
        assert diff(outcome) == [("budget_exceeded", "3 turns, over the budget of 1 turn", None)]
