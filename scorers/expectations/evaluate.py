"""`evaluate_expectations`: every expectation of a list checked against one run record, and the score they give.

The score is the weighted fraction of expectations passed. Every expectation gates by default (`required`, default
true): a failed one fails the run whatever the score (runs.verdict), so "never book without asking" is never
outweighed by five checks that passed; `"required": false` makes one count only toward the score. An invalid list raises
`InvalidExpectations` instead of scoring, because a typo in a check is the author's error, not the model's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from scorers.expectations.kinds import KINDS
from scorers.expectations.matchers import Snapshots
from scorers.expectations.outcome import DiffEntry
from scorers.expectations.record import RunRecord
from scorers.expectations.validation import validate_expectations

# How many failed expectations the one-line reason names before it says "and N more".
_REASON_NAMES = 3


class InvalidExpectations(ValueError):
    """The list does not validate; `errors` are validate_expectations' messages."""

    def __init__(self, errors: Sequence[str]) -> None:
        super().__init__("; ".join(errors))
        self.errors = tuple(errors)


@dataclass(frozen=True)
class ExpectationOutcome:
    index: int
    kind: str
    label: str  # the expectation's own description, else the generated sentence
    passed: bool
    expected: str
    actual: str
    diff: tuple[DiffEntry, ...]
    weight: float
    required: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "kind": self.kind,
            "label": self.label,
            "passed": self.passed,
            "expected": self.expected,
            "actual": self.actual,
            "diff": [entry.to_dict() for entry in self.diff],
            "weight": self.weight,
            "required": self.required,
        }


@dataclass(frozen=True)
class ExpectationsResult:
    outcomes: tuple[ExpectationOutcome, ...]
    score: float
    reason: str
    # What `$snapshot` checks saw, one entry per key: {key, value, status} (created, updated, matched, mismatched,
    # refused); the caller stores the created and updated ones.
    snapshots: tuple[dict[str, Any], ...] = field(default=())

    @property
    def passed_count(self) -> int:
        return sum(outcome.passed for outcome in self.outcomes)

    @property
    def required_failed(self) -> bool:
        return any(outcome.required and not outcome.passed for outcome in self.outcomes)

    def to_dict(self) -> dict[str, Any]:
        """The JSON-ready form stored with a run's score and shown on its page."""
        return {
            "score": self.score,
            "reason": self.reason,
            "passed": self.passed_count,
            "total": len(self.outcomes),
            "required_failed": self.required_failed,
            "outcomes": [outcome.to_dict() for outcome in self.outcomes],
            **({"snapshots": list(self.snapshots)} if self.snapshots else {}),
        }


def describe(expectation: Mapping[str, Any]) -> str:
    """A human sentence for a valid expectation: "get_weather called with latitude in [-90, 90]"."""
    return KINDS[expectation["kind"]].describe(expectation)


def evaluate_expectations(
    expectations: Sequence[Mapping[str, Any]], record: Mapping[str, Any], *, snapshots: Snapshots | None = None
) -> ExpectationsResult:
    """Check each expectation against the scorer record `{input, expected, output, run}`, in order.

    `snapshots`: the stored values `$snapshot` compares with (none: every snapshot is a first one, recorded).
    """
    errors = validate_expectations(list(expectations))
    if errors:
        raise InvalidExpectations(errors)
    snapshots = snapshots if snapshots is not None else Snapshots()
    run = replace(RunRecord.from_record(record), snapshots=snapshots)
    outcomes = tuple(_evaluate(index, expectation, run) for index, expectation in enumerate(expectations))
    return ExpectationsResult(
        outcomes=outcomes,
        score=_score(outcomes),
        reason=_reason(outcomes),
        snapshots=tuple(snapshots.seen.values()),
    )


def _evaluate(index: int, expectation: Mapping[str, Any], run: RunRecord) -> ExpectationOutcome:
    kind = KINDS[expectation["kind"]]
    outcome = kind.evaluate(expectation, run)
    return ExpectationOutcome(
        index=index,
        kind=kind.name,
        label=expectation.get("description") or kind.describe(expectation),
        passed=outcome.passed,
        expected=outcome.expected,
        actual=outcome.actual,
        diff=outcome.diff,
        weight=float(expectation.get("weight", 1)),
        required=bool(expectation.get("required", True)),
    )


def _score(outcomes: tuple[ExpectationOutcome, ...]) -> float:
    if not outcomes:
        return 1.0  # Nothing was expected, so nothing failed.
    total = sum(outcome.weight for outcome in outcomes)
    return sum(outcome.weight for outcome in outcomes if outcome.passed) / total


def _reason(outcomes: tuple[ExpectationOutcome, ...]) -> str:
    """One line: `4/5 expectations passed; failed: get_weather called with latitude in [-90, 90]`."""
    if not outcomes:
        return "no expectations to check"
    passed = sum(outcome.passed for outcome in outcomes)
    reason = f"{passed}/{len(outcomes)} expectations passed"
    failures = [outcome for outcome in outcomes if not outcome.passed]
    if not failures:
        return reason
    # Gating failures first: they are why the run failed.
    failures.sort(key=lambda outcome: not outcome.required)
    names = [outcome.label + ("" if outcome.required else " (score only)") for outcome in failures[:_REASON_NAMES]]
    more = len(failures) - _REASON_NAMES
    # Semicolons, since generated sentences hold commas of their own.
    listed = "; ".join(names) + (f"; and {more} more" if more > 0 else "")
    return f"{reason}; failed: {listed}"
