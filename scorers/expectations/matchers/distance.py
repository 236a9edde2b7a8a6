"""`$levenshtein`: text within a number of edits of a reference (mcptest's `levenshtein`).

The distance counts insertions, deletions and substitutions of Unicode code points. A value that is not a string is
compared as its compact JSON text, as mcptest compares "the stringified value".
"""

from __future__ import annotations

import json
from typing import Any

from scorers.expectations.matchers.base import MatchContext, Matcher, Mismatch
from scorers.expectations.values import render


def within(a: str, b: str, limit: int) -> int | None:
    """The edit distance of `a` and `b` when it is at most `limit`, else None.

    Only the band of cells within `limit` of the diagonal can stay under the limit (Ukkonen), so this is
    O(len * limit) rather than O(len^2): a long answer compared with a small `max` stays cheap.
    """
    if abs(len(a) - len(b)) > limit:
        return None
    over = limit + 1
    previous = {j: j for j in range(min(len(b), limit) + 1)}  # row 0, within the band
    for i in range(1, len(a) + 1):
        current: dict[int, int] = {}
        for j in range(max(0, i - limit), min(len(b), i + limit) + 1):
            if j == 0:
                current[0] = i
                continue
            substitution = previous.get(j - 1, over) + (a[i - 1] != b[j - 1])
            current[j] = min(previous.get(j, over) + 1, current.get(j - 1, over) + 1, substitution, over)
        if min(current.values()) > limit:
            return None  # every path already costs more than the limit
        previous = current
    distance = previous.get(len(b), over)
    return distance if distance <= limit else None


def text_of(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _test(argument: Any, actual: Any, path: str, ctx: MatchContext) -> list[Mismatch]:
    if within(text_of(actual), argument["value"], argument["max"]) is not None:
        return []
    noun = _noun(argument, actual)
    return [Mismatch(path, f"expected {noun}, got {render(actual)} (more than {argument['max']} edits away)")]


def _noun(argument: Any, actual: Any = None) -> str:
    edits = "edit" if argument["max"] == 1 else "edits"
    return f"text within {argument['max']} {edits} of {render(argument['value'])}"


MATCHERS = [
    Matcher(
        "$levenshtein",
        'Text at most `max` edits (insertions, deletions, substitutions) from `value`: {"value": "…", "max": 3}.',
        {
            "type": "object",
            "properties": {"value": {"type": "string"}, "max": {"type": "integer", "minimum": 0}},
            "required": ["value", "max"],
            "additionalProperties": False,
        },
        '{"value": a string, "max": an integer ≥ 0}',
        {"value": "", "max": 3},
        noun=_noun,
        predicate=lambda argument: f"within {argument['max']} edits of {render(argument['value'])}",
        test=_test,
    ),
]
