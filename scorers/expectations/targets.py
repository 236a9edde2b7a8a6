"""An expectation's target value checked by an expected value: the transform first, then the match, with the
context a `$snapshot` needs (its key names the target, the turn and the transform that shaped the value).
"""

from __future__ import annotations

from typing import Any

from scorers.expectations.matchers import MatchContext, MatchMode, Mismatch, check_value, match
from scorers.expectations.record import RunRecord
from scorers.expectations.spec import Expectation, Param
from scorers.expectations.transform import TransformError, apply_transform

# The parameter of every kind that checks its target with an expected value.
MATCHES = Param(
    {"$ref": "#/$defs/value"},
    "an expected value",
    'An expected value: a literal, or a matcher such as {"$containsAll": ["a", "b"]} or {"$not": {…}}.',
    check=check_value,
)


def target_name(expectation: Expectation, base: str) -> str:
    """`final_answer`, `tool_result get_weather $.structuredContent turn 1 | .items`: what a snapshot is keyed by."""
    parts = [base]
    if expectation.get("turn") is not None:
        parts.append(f"turn {expectation['turn']}")
    if expectation.get("transform"):
        parts.append(f"| {expectation['transform']}")
    return " ".join(parts)


def transformed(expectation: Expectation, value: Any) -> Any:
    """The value the check reads: the target, through the expectation's `transform` when it has one."""
    program = expectation.get("transform")
    return apply_transform(program, value) if program else value


def check_target(
    expected: Any, value: Any, *, expectation: Expectation, record: RunRecord, base: str, mode: MatchMode = "partial"
) -> list[Mismatch]:
    """The mismatches of the (transformed) target against `expected`; a failed transform is one mismatch."""
    try:
        value = transformed(expectation, value)
    except TransformError as error:
        return [Mismatch("", str(error))]
    ctx = MatchContext(mode=mode, target=target_name(expectation, base), snapshots=record.snapshots)
    return match(expected, value, ctx=ctx)


def labelled(label: str, mismatch: Mismatch) -> str:
    """A mismatch inside a labelled value: `answer: …`, `structuredContent.items[0]: …`."""
    if not mismatch.path:
        return f"{label}: {mismatch.message}"
    joiner = "" if mismatch.path.startswith("[") else "."
    return f"{label}{joiner}{mismatch.path}: {mismatch.message}"
