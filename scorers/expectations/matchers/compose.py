"""Composition (mcptest's `not`, `allOf`, `anyOf`, `oneOf`): matchers over expected values, which nest.

Each operand is an expected value: a matcher, or a literal compared as anywhere else (objects partially unless the
expectation says exact). mcptest's `oneOf` — exactly one operand matches — is `$exactlyOne` here, because EvalHub's
`$oneOf` already means "equal to one of these literal values" and stored expectations rely on it.
"""

from __future__ import annotations

from typing import Any

import scorers.expectations.matchers.engine as engine
from scorers.expectations.matchers.base import MatchContext, Matcher, Mismatch
from scorers.expectations.values import count, render

_OPERANDS = {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/value"}}


def _nouns(operands: list[Any], actual: Any) -> str:
    return "; ".join(engine.noun_of(operand, actual) for operand in operands)


def _predicates(operands: list[Any]) -> str:
    return "; ".join(engine.predicate_of(operand) for operand in operands)


def _not(argument: Any, actual: Any, path: str, ctx: MatchContext) -> list[Mismatch]:
    if engine.match(argument, actual, path, ctx=ctx):
        return []
    return [Mismatch(path, f"expected not {engine.noun_of(argument, actual)}, got {render(actual)}")]


def _all_of(argument: Any, actual: Any, path: str, ctx: MatchContext) -> list[Mismatch]:
    # Every failing operand's own mismatches: each says what to fix.
    return [mismatch for operand in argument for mismatch in engine.match(operand, actual, path, ctx=ctx)]


def _any_of(argument: Any, actual: Any, path: str, ctx: MatchContext) -> list[Mismatch]:
    if any(not engine.match(operand, actual, path, ctx=ctx) for operand in argument):
        return []
    return [Mismatch(path, f"expected any of: {_nouns(argument, actual)}; got {render(actual)}")]


def _exactly_one(argument: Any, actual: Any, path: str, ctx: MatchContext) -> list[Mismatch]:
    matched = sum(not engine.match(operand, actual, path, ctx=ctx) for operand in argument)
    if matched == 1:
        return []
    message = f"expected exactly one of: {_nouns(argument, actual)}; got {render(actual)}"
    return [Mismatch(path, f"{message} ({'none' if not matched else count(matched, 'operand')} matched)")]


MATCHERS = [
    Matcher(
        "$not",
        "The value does not match this expected value (a matcher or a literal).",
        {"$ref": "#/$defs/value"},
        "an expected value",
        {"$contains": ""},
        noun=lambda argument, actual: f"not {engine.noun_of(argument, actual)}",
        predicate=lambda argument: f"not {engine.predicate_of(argument)}",
        test=_not,
        composes=True,
    ),
    Matcher(
        "$allOf",
        "The value matches every one of these expected values.",
        _OPERANDS,
        "a non-empty array of expected values",
        [{"$contains": ""}],
        noun=lambda argument, actual: f"all of: {_nouns(argument, actual)}",
        predicate=lambda argument: f"all of: {_predicates(argument)}",
        test=_all_of,
        composes=True,
    ),
    Matcher(
        "$anyOf",
        "The value matches at least one of these expected values.",
        _OPERANDS,
        "a non-empty array of expected values",
        [{"$contains": ""}],
        noun=lambda argument, actual: f"any of: {_nouns(argument, actual)}",
        predicate=lambda argument: f"any of: {_predicates(argument)}",
        test=_any_of,
        composes=True,
    ),
    Matcher(
        "$exactlyOne",
        "The value matches exactly one of these expected values (mcptest's oneOf; $oneOf lists literals).",
        _OPERANDS,
        "a non-empty array of expected values",
        [{"$contains": ""}],
        noun=lambda argument, actual: f"exactly one of: {_nouns(argument, actual)}",
        predicate=lambda argument: f"exactly one of: {_predicates(argument)}",
        test=_exactly_one,
        composes=True,
    ),
]
