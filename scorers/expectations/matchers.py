"""A closed set of value matchers, and `match(expected, actual)`: where a value differs from what was expected.

An expected value is either a matcher — a one-key object whose key starts with `$`, like `{"$range": [-90, 90]}` —
or a literal compared by deep equality. Literals may hold matchers at any depth (`{"filters": {"max_price":
{"$range": [0, 500]}}}`). The set is closed on purpose: an editor can offer every matcher with its description, and
a typo is a validation error instead of a check that silently never matches.

`$oneOf` options are literals, never matchers, which doubles as the escape hatch for an object whose only key
starts with `$`: `{"$oneOf": [{"$ref": "#/a"}]}` matches that exact object.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from scorers.expectations.values import JSON_TYPES, has_type, is_number, render, values_equal

MatchMode = Literal["partial", "exact"]

# Name → one line an editor and the docs show.
MATCHERS: dict[str, str] = {
    "$type": "The value has this JSON type: string, number, integer, boolean, object, array or null.",
    "$regex": "A string in which this regular expression matches (anywhere; anchor it with ^ and $).",
    "$range": "A number in [min, max], both ends included.",
    "$contains": "A string containing this substring, or an array containing this element.",
    "$icontains": "A string containing this substring, ignoring case.",
    "$oneOf": "Equal to one of these values (compared as literals).",
    "$any": "Any value at all, as long as the key is present (write true).",
}

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Mismatch:
    """One difference: where (`latitude`, `legs[0].origin`; empty for the value itself) and what."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def matcher_of(value: Any) -> tuple[str, Any] | None:
    """(name, argument) when `value` is a matcher, else None (the value is a literal)."""
    if isinstance(value, Mapping) and len(value) == 1:
        ((key, argument),) = value.items()
        if isinstance(key, str) and key.startswith("$"):
            return key, argument
    return None


def join_path(path: str, key: str | int) -> str:
    """`latitude`, `filters.max_price`, `legs[0]`, `headers["x-api-key"]`."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _IDENTIFIER.match(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{render(key)}]"


def match(expected: Any, actual: Any, path: str = "", *, mode: MatchMode = "partial") -> list[Mismatch]:
    """Every difference between `expected` (literals and matchers) and `actual`; empty when it matches.

    `partial` compares only the object keys `expected` gives, at every depth; `exact` also reports extra keys.
    Arrays always compare element by element and must have the same length.
    """
    found = matcher_of(expected)
    if found is not None:
        name, argument = found
        if matcher_accepts(name, argument, actual):
            return []
        return [Mismatch(path, f"expected {matcher_noun(name, argument, actual)}, got {render(actual)}")]
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return [Mismatch(path, f"expected an object, got {render(actual)}")]
        mismatches: list[Mismatch] = []
        for key, sub in expected.items():
            if key in actual:
                mismatches += match(sub, actual[key], join_path(path, key), mode=mode)
            else:
                mismatches.append(Mismatch(join_path(path, key), "missing"))
        if mode == "exact":
            mismatches += [Mismatch(path, f"extra key {render(key)}") for key in actual if key not in expected]
        return mismatches
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [Mismatch(path, f"expected an array, got {render(actual)}")]
        if len(expected) != len(actual):
            return [Mismatch(path, f"expected {len(expected)} items, got {len(actual)}: {render(actual)}")]
        mismatches = []
        for i, (sub, item) in enumerate(zip(expected, actual, strict=True)):
            mismatches += match(sub, item, join_path(path, i), mode=mode)
        return mismatches
    if values_equal(expected, actual):
        return []
    return [Mismatch(path, f"expected {render(expected)}, got {render(actual)}")]


def matcher_accepts(name: str, argument: Any, actual: Any) -> bool:
    if name == "$any":
        return True
    if name == "$type":
        return has_type(actual, argument)
    if name == "$regex":
        return isinstance(actual, str) and re.search(argument, actual) is not None
    if name == "$range":
        low, high = argument
        return is_number(actual) and low <= actual <= high
    if name == "$contains":
        if isinstance(actual, str) and isinstance(argument, str):
            return argument in actual
        return isinstance(actual, list) and any(values_equal(argument, item) for item in actual)
    if name == "$icontains":
        return isinstance(actual, str) and argument.casefold() in actual.casefold()
    if name == "$oneOf":
        return any(values_equal(option, actual) for option in argument)
    return False  # An unknown matcher never matches; validation reports it before anything is evaluated.


def matcher_noun(name: str, argument: Any, actual: Any = None) -> str:
    """What a matcher expects, as the object of "expected …": `number in [-90, 90]`, `a string matching ^PAR`."""
    if name == "$type":
        return "null" if argument == "null" else f"{'an' if argument[0] in 'aeiou' else 'a'} {argument}"
    if name == "$regex":
        return f"a string matching {argument}"
    if name == "$range":
        return f"number in [{argument[0]}, {argument[1]}]"
    if name == "$contains":
        # Only a string can be found in a string; an array can hold anything.
        if isinstance(actual, list) or not isinstance(argument, str):
            container = "an array"
        else:
            container = "a string" if isinstance(actual, str) else "a string or array"
        return f"{container} containing {render(argument)}"
    if name == "$icontains":
        return f"a string containing {render(argument)} (ignoring case)"
    if name == "$oneOf":
        return f"one of {render(argument)}"
    if name == "$any":
        return "any value"
    return f"a value for unknown matcher {render(name)}"


def matcher_predicate(name: str, argument: Any) -> str:
    """What a matcher expects, after a key in a sentence: `latitude in [-90, 90]`, `origin matching ^PAR`."""
    if name == "$type":
        return f"of type {argument}"
    if name == "$regex":
        return f"matching {argument}"
    if name == "$range":
        return f"in [{argument[0]}, {argument[1]}]"
    if name == "$contains":
        return f"containing {render(argument)}"
    if name == "$icontains":
        return f"containing {render(argument)} in any case"
    if name == "$oneOf":
        return f"one of {render(argument)}"
    return "(any value)"


def describe_value(expected: Any, path: str = "") -> list[str]:
    """One clause per checked leaf: `latitude in [-90, 90]`, `origin = "PAR"`, `filters.stops = 0`."""
    found = matcher_of(expected)
    if found is not None:
        return [f"{path} {matcher_predicate(*found)}".strip()]
    if isinstance(expected, Mapping) and expected:
        return [clause for key, sub in expected.items() for clause in describe_value(sub, join_path(path, key))]
    if isinstance(expected, list) and _holds_matcher(expected):
        return [clause for i, sub in enumerate(expected) for clause in describe_value(sub, join_path(path, i))]
    return [f"{path} = {render(expected)}" if path else f"= {render(expected)}"]


def _holds_matcher(value: Any) -> bool:
    if matcher_of(value) is not None:
        return True
    if isinstance(value, Mapping):
        return any(_holds_matcher(v) for v in value.values())
    return isinstance(value, list) and any(_holds_matcher(v) for v in value)


def check_value(value: Any, where: str) -> list[str]:
    """Validation errors of an expected value, each pointing at the key that holds the faulty matcher."""
    found = matcher_of(value)
    if found is not None:
        return _check_matcher(*found, where)
    if isinstance(value, Mapping):
        return [error for key, sub in value.items() for error in check_value(sub, join_path(where, str(key)))]
    if isinstance(value, list):
        return [error for i, sub in enumerate(value) for error in check_value(sub, join_path(where, i))]
    return []


def _check_matcher(name: str, argument: Any, where: str) -> list[str]:
    if name not in MATCHERS:
        return [f"{where}: unknown matcher {render(name)}{suggestion(name, MATCHERS)}"]
    problem = _matcher_argument_problem(name, argument)
    if problem is None:
        return []
    hint = suggestion(argument, JSON_TYPES) if name == "$type" and isinstance(argument, str) else ""
    return [f"{where}: {name} {problem}, got {render(argument)}{hint}"]


def _matcher_argument_problem(name: str, argument: Any) -> str | None:
    if name == "$type" and argument not in JSON_TYPES:
        return f"needs one of {', '.join(JSON_TYPES)}"
    if name == "$regex":
        if not isinstance(argument, str):
            return "needs a regular expression string"
        return regex_problem(argument)
    if name == "$range":
        pair = isinstance(argument, list) and len(argument) == 2 and all(is_number(n) for n in argument)
        if not pair or argument[0] > argument[1]:
            return "needs two ordered numbers [min, max]"
    if name == "$icontains" and not isinstance(argument, str):
        return "needs a string"
    if name == "$oneOf" and not (isinstance(argument, list) and argument):
        return "needs a non-empty array of values"
    if name == "$any" and argument is not True:
        return "needs true"
    return None


def regex_problem(pattern: str) -> str | None:
    """Why a regular expression does not compile, or None."""
    try:
        re.compile(pattern)
    except re.error as error:
        return f"is not a valid regular expression ({error})"
    return None


def suggestion(name: str, known: Any) -> str:
    """`; did you mean "$range"?` when a known name is close to a misspelt one, else nothing."""
    close = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean {render(close[0])}?" if close else ""
