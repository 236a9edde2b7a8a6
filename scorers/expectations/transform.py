"""`transform`: a jq program applied to an expectation's target before its check (mcptest's assertion-level
`transform: jq …`), through the `jq` package's bindings to libjq — in process, no subprocess.

A transform gives exactly one value: none (`empty`, `select` that drops it) or several (`.[]`) fail the check
with what happened, since "the value" a matcher then reads would be ambiguous. Reading stops at the second output,
so a program that streams values forever is cut off; one that loops without output is the author's to avoid.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

import jq

from scorers.expectations.spec import Param
from scorers.expectations.values import render


class TransformError(ValueError):
    """The program failed on this value, or gave no value or several."""


def transform_problem(program: str) -> str | None:
    """Why a jq program does not compile, or None."""
    try:
        jq.compile(program)
    except ValueError as error:
        return f"is not a valid jq program ({_first_line(error)})"
    return None


def apply_transform(program: str, value: Any) -> Any:
    """The one value `program` makes of `value`; raises TransformError otherwise."""
    try:
        outputs = list(islice(iter(jq.compile(program).input_value(value)), 2))
    except ValueError as error:
        raise TransformError(f"transform {program!r} failed on {render(value)}: {_first_line(error)}") from error
    if len(outputs) != 1:
        what = "no value" if not outputs else "more than one value"
        raise TransformError(f"transform {program!r} gave {what} for {render(value)}; it must give exactly one")
    return outputs[0]


def _first_line(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__


def _check(program: Any, where: str) -> list[str]:
    if not isinstance(program, str) or not program.strip():
        return [f"{where}: expected a jq program, got {render(program)}"]
    problem = transform_problem(program)
    return [f"{where}: {problem}"] if problem else []


TRANSFORM = Param(
    {"type": "string", "minLength": 1},
    "a jq program",
    'A jq program applied to the value before the check, giving exactly one value: "ascii_downcase", '
    '".items | length".',
    check=_check,
)
