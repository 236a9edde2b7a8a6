"""Does a request match the recorded one, and if not, where first: the field a cassette miss names. Pure.

A path reads like the JSON it points into: `messages[3].content`, `tools[0].function.description`,
`params.arguments.city`. Dictionaries are walked in the recorded request's key order, then keys only the new one
has; lists item by item, then their lengths.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

# Of each side's value, what a miss quotes: enough to see the change, not a whole conversation.
QUOTE_CHARS = 300
ABSENT = "(absent)"
# Whose side changed (runs.verdict.errors): the agent's requests, or the answers of the MCP server under test.
AGENT, SERVER = "agent", "server"


@dataclass(frozen=True)
class Difference:
    path: str
    expected: Any
    actual: Any

    def to_dict(self) -> dict[str, str]:
        return {"field": self.path or "(whole)", "expected": quote(self.expected), "actual": quote(self.actual)}


def first_difference(expected: Any, actual: Any, path: str = "") -> Difference | None:
    """The first place `actual` differs from `expected`, or None when they are equal."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in [*expected, *(key for key in actual if key not in expected)]:
            found = first_difference(
                expected.get(key, _Absent), actual.get(key, _Absent), f"{path}.{key}" if path else str(key)
            )
            if found is not None:
                return found
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for index, (mine, theirs) in enumerate(zip(expected, actual, strict=False)):
            found = first_difference(mine, theirs, f"{path}[{index}]")
            if found is not None:
                return found
        if len(expected) != len(actual):
            index = min(len(expected), len(actual))
            return Difference(
                f"{path}[{index}]",
                expected[index] if index < len(expected) else _Absent,
                actual[index] if index < len(actual) else _Absent,
            )
        return None
    # 1 and 1.0 are the same JSON number; True and 1 are not the same JSON value.
    if (expected == actual and type(expected) is type(actual)) or _same_number(expected, actual):
        return None
    return Difference(path, expected, actual)


def quote(value: Any) -> str:
    if value is _Absent:
        return ABSENT
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1] + "…"


class CassetteMiss(Exception):
    """A replayed run asked for something the cassette does not hold, or the live server answered differently.

    `step` is the run's step in the pipeline's words ("model call 3", "tool call get_weather", "list tools"), `side`
    whose change it is (AGENT or SERVER; "" when the cassette simply ran out because it was cut), `what` the
    exchange ("model request 3", "tools/call #2 answer").
    """

    def __init__(self, *, step: str, side: str, what: str, difference: Difference | None, note: str = "") -> None:
        self.step, self.side, self.what, self.difference = step, side, what, difference
        if difference is not None:
            shown = difference.to_dict()
            message = (
                f"Cassette miss at {what}: {shown['field']} differs: recorded {shown['expected']!r}, "
                f"now {shown['actual']!r}."
            )
        else:
            message = f"Cassette miss at {what}: {note}"
        super().__init__(message)
        self.message = message

    @property
    def kind(self) -> str:
        """The error kind runs.verdict.errors attributes: the agent's, the server's, or (cut cassette) EvalHub's."""
        return {AGENT: "cassette_miss", SERVER: "server_changed"}.get(self.side, "cassette_cut")

    def details(self) -> dict[str, Any]:
        """What the run's error keeps besides its message: the exchange and the two sides of the first difference."""
        found: dict[str, Any] = {"exchange": self.what, "side": self.side or "harness"}
        if self.difference is not None:
            found.update(self.difference.to_dict())
        return {"cassette_miss": found}


class _AbsentType:
    def __repr__(self) -> str:
        return ABSENT


_Absent: Any = _AbsentType()


def _same_number(expected: Any, actual: Any) -> bool:
    numbers = (int, float)
    return (
        isinstance(expected, numbers)
        and isinstance(actual, numbers)
        and not isinstance(expected, bool)
        and not isinstance(actual, bool)
        and expected == actual
    )
