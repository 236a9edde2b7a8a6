"""`tool_called`: a tool was called — with arguments like these, on a given call, a number of times.

Arguments are expected values (literals and matchers, see `matchers`). `match: partial` (the default) checks only
the keys given, `exact` also refuses extra keys. Without counts the expectation passes when one selected call
matches; when none does, the diff lists the closest call's mismatches, one entry per argument key, because "no call
matched" alone does not tell anyone what to fix. Counts (`times`, `at_least`, `at_most`) count the calls whose
arguments match. A `transform` (jq) reshapes each call's arguments before they are compared.
"""

from __future__ import annotations

from typing import Any

from scorers.expectations.matchers import Mismatch, check_value, describe_value
from scorers.expectations.outcome import DiffEntry, Outcome, failed, passed
from scorers.expectations.record import Call, RunRecord
from scorers.expectations.spec import (
    TOOL,
    Expectation,
    Kind,
    Param,
    call_param,
    count_param,
    in_turn,
    nth,
    ordinal,
    scoped,
)
from scorers.expectations.targets import check_target
from scorers.expectations.transform import TRANSFORM
from scorers.expectations.values import count, render


def _check(expectation: Expectation, where: str) -> list[str]:
    errors = []
    if "times" in expectation and ("at_least" in expectation or "at_most" in expectation):
        errors.append(f"{where}.times: give times, or at_least/at_most, not both")
    low, high = expectation.get("at_least"), expectation.get("at_most")
    if isinstance(low, int) and isinstance(high, int) and low > high:
        errors.append(f"{where}.at_most: {high} is below at_least {low}")
    for key in ("match", "transform"):
        if key in expectation and "args" not in expectation:
            errors.append(f"{where}.{key}: only applies with args")
    if expectation.get("call", "any") != "any" and _bounds(expectation) != (None, None):
        errors.append(f'{where}.call: counts apply to all calls; use call "any" (the default) with them')
    return errors


def _check_args(args: Any, where: str) -> list[str]:
    if not isinstance(args, dict):
        return [f"{where}: expected an object of expected arguments, got {render(args)}"]
    return check_value(args, where)


def _bounds(expectation: Expectation) -> tuple[int | None, int | None]:
    if "times" in expectation:
        return expectation["times"], expectation["times"]
    return expectation.get("at_least"), expectation.get("at_most")


def _count_phrase(low: int | None, high: int | None) -> str:
    if low == high and low is not None:
        return f"exactly {count(low, 'time')}"
    if low is not None and high is not None:
        return f"between {low} and {count(high, 'time')}"
    if low is not None:
        return f"at least {count(low, 'time')}"
    return f"at most {count(high or 0, 'time')}"


def describe(expectation: Expectation) -> str:
    sentence = f"{expectation['tool']} called"
    low, high = _bounds(expectation)
    if (low, high) != (None, None):
        sentence += " " + _count_phrase(low, high)
    if "args" in expectation:
        exact = expectation.get("match") == "exact"
        clauses = describe_value(expectation["args"]) if expectation["args"] else []
        sentence += " with " + ("exactly " if exact and clauses else "") + (", ".join(clauses) or "no arguments")
        if expectation.get("transform"):
            sentence += f" (arguments through {expectation['transform']})"
    position = nth(expectation.get("call", "any"))
    if position is not None and "args" in expectation:
        sentence += " on its first call" if position == 1 else f" on its {ordinal(position)} call"
    elif position is not None and position > 1:
        sentence += f" a {ordinal(position)} time"
    return scoped(expectation, sentence)


def _mismatches(expectation: Expectation, call: Call, record: RunRecord) -> list[Mismatch]:
    if "args" not in expectation:
        return []
    base = f"tool_called {expectation['tool']} args"
    mode = expectation.get("match", "partial")
    return check_target(expectation["args"], call.args, expectation=expectation, record=record, base=base, mode=mode)


def _argument_diff(call: Call, mismatches: list[Mismatch]) -> list[DiffEntry]:
    return [DiffEntry("argument_mismatch", str(mismatch), call.index) for mismatch in mismatches]


def _closest(
    expectation: Expectation, calls: tuple[Call, ...] | list[Call], record: RunRecord
) -> tuple[Call, list[Mismatch]]:
    """The call with the fewest mismatched keys (the earliest on a tie): the one the author most likely meant."""
    scored = [(call, _mismatches(expectation, call, record)) for call in calls]
    return min(scored, key=lambda pair: len(pair[1]))


def evaluate(expectation: Expectation, record: RunRecord) -> Outcome:
    tool = expectation["tool"]
    expected = describe(expectation)
    in_scope = record.calls_in(expectation.get("turn"))
    calls = [call for call in in_scope if call.tool == tool]
    if _bounds(expectation) != (None, None):
        return _evaluate_counts(expectation, calls, expected, record)
    if not calls:
        others = ", ".join(dict.fromkeys(call.tool for call in in_scope))
        called = f"called: {others}" if others else "no tool was called"
        actual = f"{tool} was not called{in_turn(expectation)}; {called}"
        return failed(expected, actual, DiffEntry("missing_call", f"{tool} was never called{in_turn(expectation)}"))
    position = nth(expectation.get("call", "any"))
    if position is not None and position > len(calls):
        message = f"{tool} was called {count(len(calls), 'time')}, so it has no {ordinal(position)} call"
        return failed(expected, message, DiffEntry("missing_call", message))
    candidates = calls if position is None else [calls[position - 1]]
    for call in candidates:
        if not _mismatches(expectation, call, record):
            return passed(expected, f"{tool} called as expected ({call.number})")
    call, mismatches = _closest(expectation, candidates, record)
    which = "checked" if len(candidates) == 1 else "closest"
    actual = f"{tool} called {count(len(calls), 'time')}; the {which} call ({call.number}) had " + count(
        len(mismatches), "mismatched argument"
    )
    return failed(expected, actual, *_argument_diff(call, mismatches))


def _evaluate_counts(expectation: Expectation, calls: list[Call], expected: str, record: RunRecord) -> Outcome:
    tool = expectation["tool"]
    low, high = _bounds(expectation)
    matching = [call for call in calls if not _mismatches(expectation, call, record)]
    n = len(matching)
    with_args = " with matching arguments" if "args" in expectation else ""
    actual = f"{tool} called {count(n, 'time')}{with_args}"
    if "args" in expectation and len(calls) != n:
        actual += f" ({len(calls)} in all)"
    wanted = _count_phrase(low, high)
    if low is not None and n < low:
        diff = [DiffEntry("missing_call", f"{tool} called {count(n, 'time')}{with_args}, expected {wanted}")]
        unmatched = [call for call in calls if call not in matching]
        if unmatched:
            diff += _argument_diff(*_closest(expectation, unmatched, record))
        return failed(expected, actual, *diff)
    if high is not None and n > high:
        extra = matching[high]
        message = f"{tool} called {count(n, 'time')}{with_args}, expected {wanted}"
        return failed(expected, actual, DiffEntry("unexpected_call", message, extra.index))
    return passed(expected, actual)


KIND = Kind(
    name="tool_called",
    description="A tool was called, optionally with arguments like these, on a given call, or a number of times.",
    params={
        "tool": TOOL,
        "args": Param(
            {"type": "object", "additionalProperties": {"$ref": "#/$defs/value"}},
            "an object of expected arguments",
            'Expected arguments: literals or matchers such as {"$range": [-90, 90]}.',
            check=_check_args,
        ),
        "match": Param(
            {"enum": ["partial", "exact"]},
            '"partial" or "exact"',
            '"partial" (default) compares only the keys given; "exact" also refuses extra keys.',
        ),
        "transform": TRANSFORM,
        "call": call_param(allow_any=True),
        "times": count_param("Exactly this many matching calls."),
        "at_least": count_param("At least this many matching calls."),
        "at_most": count_param("At most this many matching calls."),
    },
    evaluate=evaluate,
    describe=describe,
    required=("tool",),
    check=_check,
    extra_schema={"not": {"anyOf": [{"required": ["times", "at_least"]}, {"required": ["times", "at_most"]}]}},
)
