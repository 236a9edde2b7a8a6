"""Checks on the run as a whole: how it stopped, and its budgets of tokens, cost, time and turns.

They read the record's `run` ({model, stopReason, durationMs, turns, usage, costUsd}) and apply to the whole run,
so they refuse `turn`. A value the run did not record fails rather than passes: an unknown cost (a model
without a known price makes `costUsd` null) is not a cost within budget, and saying so beats a silent pass.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import Any

from scorers.expectations.matchers import suggestion
from scorers.expectations.outcome import Category, DiffEntry, Outcome, failed, passed
from scorers.expectations.record import RunRecord
from scorers.expectations.spec import Expectation, Kind, Param, max_param
from scorers.expectations.values import is_number, render

# The values of runs.models.Run.StopReason, repeated here because this package stays Django-free.
STOP_REASONS = (
    "completed",
    "max_turns",
    "max_tool_calls",
    "time_limit",
    "token_budget",
    "cost_budget",
    "user_done",
    "max_user_turns",
    "error",
    "cancelled",
)
# Stop reasons that mean a limit of the run was reached: a budget matter rather than a wrong ending.
_LIMIT_REASONS = ("max_turns", "max_tool_calls", "time_limit", "token_budget", "cost_budget", "max_user_turns")


def _check_stop_reason(reason: Any, where: str) -> list[str]:
    if reason in STOP_REASONS:
        return []
    hint = suggestion(reason, STOP_REASONS) if isinstance(reason, str) else ""
    return [f"{where}: unknown stop reason {render(reason)}{hint or ' (one of ' + ', '.join(STOP_REASONS) + ')'}"]


def describe_stop_reason(expectation: Expectation) -> str:
    return f"run stopped with {render(expectation['equals'])}"


def evaluate_stop_reason(expectation: Expectation, record: RunRecord) -> Outcome:
    wanted, actual = expectation["equals"], record.run.get("stopReason")
    expected = describe_stop_reason(expectation)
    if not isinstance(actual, str) or not actual:
        return failed(expected, "stop reason unknown", DiffEntry("answer_mismatch", "the run recorded no stop reason"))
    if actual == wanted:
        return passed(expected, f"stopped with {render(actual)}")
    category: Category = "budget_exceeded" if actual in _LIMIT_REASONS else "answer_mismatch"
    message = f"stopped with {render(actual)}, expected {render(wanted)}"
    return failed(expected, f"stopped with {render(actual)}", DiffEntry(category, message))


def _cost(record: RunRecord) -> float | None:
    # The run stores cost as a Decimal, which may reach the record as a string: "0.0123" is a known cost too.
    value = record.run.get("costUsd")
    if isinstance(value, str):
        try:
            return float(Decimal(value))
        except InvalidOperation:
            return None
    return float(value) if isinstance(value, int | float) and is_number(value) else None


def _budget(
    name: str,
    description: str,
    measure: Callable[[RunRecord], float | None],
    *,
    sentence: Callable[[float], str],
    phrase: str,
    unknown: str,
    integer: bool = True,
) -> Kind:
    """A budget kind: the measured value must be at most `max`; an unmeasured one fails with `unknown`."""

    def describe(expectation: Expectation) -> str:
        return phrase.format(limit=sentence(expectation["max"]))

    def evaluate(expectation: Expectation, record: RunRecord) -> Outcome:
        limit, value = expectation["max"], measure(record)
        expected = describe(expectation)
        if value is None:
            reason = unknown.format(limit=sentence(limit))
            return failed(expected, reason, DiffEntry("budget_exceeded", reason))
        if value <= limit:
            return passed(expected, sentence(value))
        message = f"{sentence(value)}, over the budget of {sentence(limit)}"
        return failed(expected, sentence(value), DiffEntry("budget_exceeded", message))

    return Kind(
        name=name,
        description=description,
        params={"max": max_param("The budget, inclusive.", integer=integer)},
        evaluate=evaluate,
        describe=describe,
        required=("max",),
        whole_run=True,
    )


def _number(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,}"


def _usd(amount: float) -> str:
    """`$0.05`, `$0.0713`, `$2`: at most four decimals, without trailing zeros."""
    return "$" + f"{amount:,.4f}".rstrip("0").rstrip(".")


KINDS = [
    Kind(
        name="stop_reason",
        description=f"The run stopped for this reason: one of {', '.join(STOP_REASONS)}.",
        params={
            "equals": Param(
                {"enum": list(STOP_REASONS)}, "a stop reason", "The expected stop reason.", check=_check_stop_reason
            )
        },
        evaluate=evaluate_stop_reason,
        describe=describe_stop_reason,
        required=("equals",),
        whole_run=True,
    ),
    _budget(
        "max_tokens_total",
        "At most this many tokens in total (input + output) over the run.",
        RunRecord.total_tokens,
        sentence=lambda n: f"{_number(n)} tokens",
        phrase="at most {limit} in total",
        unknown="tokens unknown: the run recorded no token usage, so the budget of {limit} cannot be checked",
    ),
    _budget(
        "max_cost_usd",
        "At most this cost in USD. Fails when the cost is unknown (a model's price is not known).",
        _cost,
        sentence=_usd,
        phrase="cost at most {limit}",
        unknown="cost unknown: a model's price is not known, so the budget of {limit} cannot be checked",
        integer=False,
    ),
    _budget(
        "max_duration_ms",
        "The run took at most this many milliseconds.",
        lambda record: record.run_number("durationMs"),
        sentence=lambda ms: f"{_number(ms)} ms",
        phrase="run took at most {limit}",
        unknown="duration unknown: the run recorded none, so the budget of {limit} cannot be checked",
    ),
    _budget(
        "max_turns",
        "The agent took at most this many turns (model calls).",
        lambda record: record.run_number("turns"),
        sentence=lambda n: f"{_number(n)} turn" + ("" if n == 1 else "s"),
        phrase="at most {limit}",
        unknown="turns unknown: the run recorded none, so the budget of {limit} cannot be checked",
    ),
]
