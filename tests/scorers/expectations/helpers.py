"""Evaluate one expectation and read its outcome the way the tests assert it."""

from __future__ import annotations

from typing import Any

from scorers.expectations import ExpectationOutcome, evaluate_expectations


def check(expectation: dict[str, Any], record: dict[str, Any]) -> ExpectationOutcome:
    [outcome] = evaluate_expectations([expectation], record).outcomes
    return outcome


def diff(outcome: ExpectationOutcome) -> list[tuple[str, str, int | None]]:
    """(category, message, call_index) of each diff entry."""
    return [(entry.category, entry.message, entry.call_index) for entry in outcome.diff]
