"""What one expectation's check found: passed or not, in two short sentences, and a categorized diff."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

# The diff's categories: a display groups and colours by them, and aggregates count them across runs.
Category = Literal[
    "missing_call",  # a call that should have happened did not
    "unexpected_call",  # a forbidden, extra or repeated call
    "out_of_order",  # the calls happened, in the wrong order
    "argument_mismatch",  # one argument key of a call, per key
    "result_mismatch",  # what a tool returned (errors and invalid structured output included)
    "answer_mismatch",  # the final answer, or how the run ended
    "budget_exceeded",  # tokens, cost, time, turns or tool calls over the limit, or not measurable
]
CATEGORIES: tuple[Category, ...] = (
    "missing_call",
    "unexpected_call",
    "out_of_order",
    "argument_mismatch",
    "result_mismatch",
    "answer_mismatch",
    "budget_exceeded",
)


@dataclass(frozen=True)
class DiffEntry:
    category: Category
    message: str
    call_index: int | None = None  # 0-based position in allToolCalls, when the entry is about one call

    def to_dict(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"category": self.category, "message": self.message}
        if self.call_index is not None:
            entry["call_index"] = self.call_index
        return entry


@dataclass(frozen=True)
class Outcome:
    """`expected` says what was checked and `actual` what the run did, each in one short sentence."""

    passed: bool
    expected: str
    actual: str
    diff: tuple[DiffEntry, ...] = ()


def passed(expected: str, actual: str) -> Outcome:
    return Outcome(True, expected, actual)


def failed(expected: str, actual: str, *diff: DiffEntry) -> Outcome:
    return Outcome(False, expected, actual, diff)
