"""JSON values as expectations see them: equality, JSON types, a canonical form and a short rendering for messages.

The record comes from JSON, so Python's own `==` is almost right; the exceptions are the reason this module exists:
`True == 1` in Python but a boolean is never a number here, while `1 == 1.0` is kept (JSON has one number type).
"""

from __future__ import annotations

import json
from typing import Any

JSON_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")

_RENDER_LIMIT = 80


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def json_type(value: Any) -> str:
    """The JSON type name of a value; integral numbers are "integer" (they are also numbers)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if is_number(value):
        return "integer" if float(value).is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def has_type(value: Any, type_name: str) -> bool:
    """Whether a value is of a JSON type, where every integer is also a number (as in JSON Schema)."""
    actual = json_type(value)
    return actual == type_name or (type_name == "number" and actual == "integer")


def values_equal(expected: Any, actual: Any) -> bool:
    """Deep JSON equality: 1 == 1.0, but a boolean never equals a number."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(expected, bool) and isinstance(actual, bool) and expected == actual
    if is_number(expected) and is_number(actual):
        return bool(expected == actual)
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(values_equal(v, actual[k]) for k, v in expected.items())
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(values_equal(e, a) for e, a in zip(expected, actual, strict=True))
    return type(expected) is type(actual) and bool(expected == actual)


def canonical(value: Any) -> str:
    """One string per JSON value, equal for equal values: sorted keys, and 2.0 written as 2."""
    return json.dumps(_normalized(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _normalized(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, dict):
        return {str(k): _normalized(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalized(v) for v in value]
    return value


def render(value: Any, *, limit: int = _RENDER_LIMIT) -> str:
    """A value as JSON for a message (`"48.85"` for a string, `48.85` for a number), cut at `limit` characters."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`1 time`, `3 times`: a count with its noun, for sentences."""
    return f"{n} {noun}" if n == 1 else f"{n} {plural or noun + 's'}"
