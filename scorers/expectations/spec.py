"""How a kind of expectation is declared: its parameters (with their JSON Schema), its checks, its evaluator.

One declaration feeds validation, the exported JSON Schema, `describe` and evaluation, so the four cannot drift.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from scorers.expectations.outcome import Outcome
from scorers.expectations.record import RunRecord

Expectation = Mapping[str, Any]


@dataclass(frozen=True)
class Param:
    schema: Mapping[str, Any]  # JSON Schema of the value, for editors, OpenAPI and the type check
    expects: str  # what a type error says was expected: "a non-negative integer"
    description: str
    # Replaces the schema check for values holding matchers, whose errors must point inside the value.
    check: Callable[[Any, str], list[str]] | None = None


@dataclass(frozen=True)
class Kind:
    name: str
    description: str
    params: Mapping[str, Param]
    evaluate: Callable[[Expectation, RunRecord], Outcome]
    describe: Callable[[Expectation], str]
    required: tuple[str, ...] = ()
    one_of: tuple[str, ...] = ()  # exactly one of these parameters
    # Rules across parameters (`times` excludes `at_least`), given the expectation and its pointer.
    check: Callable[[Expectation, str], list[str]] | None = None
    extra_schema: Mapping[str, Any] = field(default_factory=dict)  # JSON Schema for what `check` enforces
    whole_run: bool = False  # about the run as a whole, so `turn` is refused rather than silently ignored


COMMON_PARAMS: dict[str, Param] = {
    "weight": Param(
        {"type": "number", "exclusiveMinimum": 0},
        "a number > 0",
        "How much this expectation counts in the score (default 1).",
    ),
    "required": Param(
        {"type": "boolean", "default": True},
        "true or false",
        "When true (the default), failing this expectation fails the run; false makes it count only toward the score.",
    ),
    "description": Param({"type": "string"}, "a string", "A label shown instead of the generated sentence."),
    "turn": Param(
        {"type": "integer", "minimum": 0},
        "an integer ≥ 0",
        "The user turn this expectation is scoped to, numbered as the run's `userTurn`: 0 is the scenario's prompt, "
        "1 the first follow-up. Ignored by a run of one prompt.",
    ),
}

TOOL = Param({"type": "string", "minLength": 1}, "a tool name", "The tool's name.")
TOOLS = Param(
    {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
    "a non-empty list of tool names",
    "Tool names.",
)
_NTH_STRICT = {
    "type": "object",
    "properties": {"nth": {"type": "integer", "minimum": 1}},
    "required": ["nth"],
    "additionalProperties": False,
}


def count_param(description: str) -> Param:
    return Param({"type": "integer", "minimum": 0}, "a non-negative integer", description)


def max_param(description: str, *, integer: bool = True) -> Param:
    schema = {"type": "integer", "minimum": 0} if integer else {"type": "number", "minimum": 0}
    return Param(schema, "a non-negative integer" if integer else "a non-negative number", description)


def call_param(*, allow_any: bool) -> Param:
    if allow_any:
        return Param(
            {"oneOf": [{"enum": ["any", "first"]}, _NTH_STRICT]},
            '"any", "first" or {"nth": n} with n ≥ 1',
            'Which of the tool\'s calls to check: "any" (default), "first" or {"nth": n}, 1-based.',
        )
    return Param(
        {"oneOf": [{"const": "first"}, _NTH_STRICT]},
        '"first" or {"nth": n} with n ≥ 1',
        'Which of the tool\'s calls to check: "first" (default) or {"nth": n}, 1-based.',
    )


def nth(selector: Any) -> int | None:
    """The 1-based position a `call` selector names (`first` is 1), or None for `any`."""
    if selector == "first":
        return 1
    if isinstance(selector, Mapping):
        return int(selector["nth"])
    return None


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def scoped(expectation: Expectation, sentence: str) -> str:
    """A sentence prefixed with its user turn, when the expectation is scoped to one."""
    turn = expectation.get("turn")
    return f"turn {turn}: {sentence}" if turn is not None else sentence


def in_turn(expectation: Expectation) -> str:
    turn = expectation.get("turn")
    return f" in turn {turn}" if turn is not None else ""
