"""`match(expected, actual)`: where a value differs from what was expected; `check_value`: why an expected value is
invalid, pointing at the key that holds the fault; `describe_value`: the clauses a sentence names.

An expected value is either a matcher — a one-key object whose key starts with `$`, like `{"$range": [-90, 90]}` —
or a literal compared by deep equality. Literals may hold matchers at any depth (`{"filters": {"max_price":
{"$range": [0, 500]}}}`), and compositions (`$not`, `$allOf`, …) hold expected values in turn. The set is closed on
purpose: an editor can offer every matcher with its description, and a typo is a validation error instead of a
check that silently never matches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator

from scorers.expectations.matchers.base import MatchContext, Mismatch, join_path, matcher_of, suggestion
from scorers.expectations.values import JSON_TYPES, render, values_equal


def registry() -> Any:
    # Imported on use: the composition matchers import this module back.
    from scorers.expectations.matchers.registry import REGISTRY

    return REGISTRY


def match(expected: Any, actual: Any, path: str = "", *, ctx: MatchContext | None = None) -> list[Mismatch]:
    """Every difference between `expected` (literals and matchers) and `actual`; empty when it matches.

    `partial` mode (the default) compares only the object keys `expected` gives, at every depth; `exact` also
    reports extra keys. Arrays always compare element by element and must have the same length.
    """
    ctx = ctx or MatchContext()
    found = matcher_of(expected)
    if found is not None:
        return _apply(*found, actual, path, ctx)
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return [Mismatch(path, f"expected an object, got {render(actual)}")]
        mismatches: list[Mismatch] = []
        for key, sub in expected.items():
            if key in actual:
                mismatches += match(sub, actual[key], join_path(path, key), ctx=ctx)
            else:
                mismatches.append(Mismatch(join_path(path, key), "missing"))
        if ctx.mode == "exact":
            mismatches += [Mismatch(path, f"extra key {render(key)}") for key in actual if key not in expected]
        return mismatches
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [Mismatch(path, f"expected an array, got {render(actual)}")]
        if len(expected) != len(actual):
            return [Mismatch(path, f"expected {len(expected)} items, got {len(actual)}: {render(actual)}")]
        mismatches = []
        for i, (sub, item) in enumerate(zip(expected, actual, strict=True)):
            mismatches += match(sub, item, join_path(path, i), ctx=ctx)
        return mismatches
    if values_equal(expected, actual):
        return []
    return [Mismatch(path, f"expected {render(expected)}, got {render(actual)}")]


def _apply(name: str, argument: Any, actual: Any, path: str, ctx: MatchContext) -> list[Mismatch]:
    matcher = registry().get(name)
    if matcher is None:  # Validation reports an unknown matcher before anything is evaluated.
        return [Mismatch(path, f"unknown matcher {render(name)}")]
    if matcher.test is not None:
        return matcher.test(argument, actual, path, ctx)
    assert matcher.accepts is not None
    if matcher.accepts(argument, actual):
        return []
    return [Mismatch(path, f"expected {matcher.noun(argument, actual)}, got {render(actual)}")]


def noun_of(expected: Any, actual: Any) -> str:
    """What an expected value expects, as the object of "expected …": a matcher's noun, or the literal."""
    found = matcher_of(expected)
    if found is not None and found[0] in registry():
        return str(registry()[found[0]].noun(found[1], actual))
    return render(expected)


def predicate_of(expected: Any) -> str:
    found = matcher_of(expected)
    if found is not None and found[0] in registry():
        return str(registry()[found[0]].predicate(found[1]))
    return f"= {render(expected)}"


def describe_value(expected: Any, path: str = "") -> list[str]:
    """One clause per checked leaf: `latitude in [-90, 90]`, `origin = "PAR"`, `filters.stops = 0`."""
    found = matcher_of(expected)
    if found is not None:
        return [f"{path} {predicate_of(expected)}".strip()]
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


def check_value(value: Any, where: str, *, composed: bool = False) -> list[str]:
    """Validation errors of an expected value, each pointing at the key that holds the faulty matcher.

    `composed`: the value is inside `$not`/`$allOf`/`$anyOf`/`$exactlyOne`, where a snapshot is refused.
    """
    found = matcher_of(value)
    if found is not None:
        return _check_matcher(*found, where, composed=composed)
    if isinstance(value, Mapping):
        return [
            error
            for key, sub in value.items()
            for error in check_value(sub, join_path(where, str(key)), composed=composed)
        ]
    if isinstance(value, list):
        return [
            error for i, sub in enumerate(value) for error in check_value(sub, join_path(where, i), composed=composed)
        ]
    return []


def _check_matcher(name: str, argument: Any, where: str, *, composed: bool) -> list[str]:
    from scorers.expectations.matchers.registry import STATEFUL

    matcher = registry().get(name)
    if matcher is None:
        return [f"{where}: unknown matcher {render(name)}{suggestion(name, registry())}"]
    if composed and name in STATEFUL:
        return [f"{where}: {name} cannot be negated or composed (it stores a value); give it its own expectation"]
    if matcher.composes:
        inside = f"{where}.{name}"
        if name == "$not":
            return check_value(argument, inside, composed=True)
        if not (isinstance(argument, list) and argument):
            return [f"{where}: {name} needs {matcher.needs}, got {render(argument)}"]
        return [
            error
            for i, operand in enumerate(argument)
            for error in check_value(operand, f"{inside}[{i}]", composed=True)
        ]
    if not Draft202012Validator(dict(matcher.schema)).is_valid(argument):
        hint = suggestion(argument, JSON_TYPES) if name == "$type" and isinstance(argument, str) else ""
        return [f"{where}: {name} needs {matcher.needs}, got {render(argument)}{hint}"]
    problem = matcher.problem(argument) if matcher.problem is not None else None
    if problem is None:
        return []
    return [f"{where}: {name} {problem}, got {render(argument)}"]
