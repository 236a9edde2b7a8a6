"""Checks over the whole set of calls: forbidden tools, an allow-list, repeats, a call budget, errors, schemas."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scorers.expectations.outcome import DiffEntry, Outcome, failed, passed
from scorers.expectations.record import Call, RunRecord
from scorers.expectations.spec import TOOL, TOOLS, Expectation, Kind, count_param, in_turn, max_param, scoped
from scorers.expectations.values import canonical, count, render

# Up to this many calls are named in a message ("calls 1.1 and 1.2"); more are counted.
NAMED_CALLS = 3


def _forbidden(expectation: Expectation) -> list[str]:
    return [expectation["tool"]] if "tool" in expectation else list(expectation["tools"])


def describe_not_called(expectation: Expectation) -> str:
    tools = _forbidden(expectation)
    if len(tools) == 1:
        return scoped(expectation, f"{tools[0]} not called")
    return scoped(expectation, f"none of {', '.join(tools)} called")


def evaluate_not_called(expectation: Expectation, record: RunRecord) -> Outcome:
    forbidden = _forbidden(expectation)
    offending = [call for call in record.calls_in(expectation.get("turn")) if call.tool in forbidden]
    expected = describe_not_called(expectation)
    if not offending:
        return passed(expected, f"{' or '.join(forbidden)} not called{in_turn(expectation)}")
    diff = [DiffEntry("unexpected_call", f"{call.tool} was called ({call.number})", call.index) for call in offending]
    actual = ", ".join(dict.fromkeys(call.tool for call in offending)) + f" called {count(len(offending), 'time')}"
    return failed(expected, actual, *diff)


def describe_only_tools(expectation: Expectation) -> str:
    return scoped(expectation, f"only {', '.join(expectation['tools'])} called")


def evaluate_only_tools(expectation: Expectation, record: RunRecord) -> Outcome:
    allowed = expectation["tools"]
    calls = record.calls_in(expectation.get("turn"))
    others = [call for call in calls if call.tool not in allowed]
    expected = describe_only_tools(expectation)
    called = ", ".join(dict.fromkeys(call.tool for call in calls)) or "no tool"
    if not others:
        return passed(expected, f"called: {called}")
    diff = [
        DiffEntry("unexpected_call", f"{call.tool} is not an allowed tool ({call.number})", call.index)
        for call in others
    ]
    return failed(expected, f"called: {called}", *diff)


def describe_no_redundant(expectation: Expectation) -> str:
    allowance = expectation.get("allowance", 0)
    if allowance:
        return scoped(expectation, f"at most {count(allowance, 'repeated call')} with the same arguments")
    return scoped(expectation, "no tool called twice with the same arguments")


def evaluate_no_redundant(expectation: Expectation, record: RunRecord) -> Outcome:
    first_seen: dict[tuple[str, str], Call] = {}
    repeats: list[tuple[Call, Call]] = []
    for call in record.calls_in(expectation.get("turn")):
        first = first_seen.setdefault((call.tool, canonical(call.args)), call)
        if first is not call:
            repeats.append((call, first))
    expected = describe_no_redundant(expectation)
    actual = count(len(repeats), "repeated call")
    if len(repeats) <= expectation.get("allowance", 0):
        return passed(expected, actual)
    diff = [
        DiffEntry("unexpected_call", f"{call.tool} repeated with the same arguments as {first.number}", call.index)
        for call, first in repeats
    ]
    return failed(expected, actual, *diff)


def describe_max_calls(expectation: Expectation) -> str:
    return scoped(expectation, f"at most {count(expectation['max'], 'tool call')}")


def evaluate_max_calls(expectation: Expectation, record: RunRecord) -> Outcome:
    calls = record.calls_in(expectation.get("turn"))
    limit = expectation["max"]
    expected = describe_max_calls(expectation)
    actual = count(len(calls), "tool call")
    if len(calls) <= limit:
        return passed(expected, actual)
    over = calls[limit]
    message = f"{actual}, at most {limit} allowed"
    return failed(expected, actual, DiffEntry("budget_exceeded", message, over.index))


def _error_text(result: Any) -> str:
    content = result.get("content") if isinstance(result, Mapping) else None
    for block in content if isinstance(content, list) else []:
        if isinstance(block, Mapping) and isinstance(block.get("text"), str):
            return render(block["text"], limit=120)
    return "no message"


def describe_no_errors(expectation: Expectation) -> str:
    return scoped(expectation, "no tool call returned an error")


def evaluate_no_errors(expectation: Expectation, record: RunRecord) -> Outcome:
    calls = record.calls_in(expectation.get("turn"))
    errored = [call for call in calls if call.is_error]
    expected = describe_no_errors(expectation)
    if not errored:
        if not calls:
            return passed(expected, "no tool was called")
        named = len(calls) <= NAMED_CALLS
        return passed(expected, f"{_named(calls)}: none errored" if named else f"{_named(calls)}, none errored")
    diff = [
        DiffEntry("result_mismatch", f"{call.label} returned an error: {_error_text(call.result)}", call.index)
        for call in errored
    ]
    return failed(expected, f"{len(errored)} of {count(len(calls), 'call')} errored", *diff)


def _named(calls: list[Call] | tuple[Call, ...]) -> str:
    """`call 1.1`, `calls 1 and 2`, or `5 calls`: the calls by the run page's labels while there are few to name.
    ("1 call" beside a transcript that shows run_code as call 1 and get_weather as call 1.1 read as a mismatch.)"""
    if len(calls) > NAMED_CALLS:
        return count(len(calls), "call")
    numbers = [call.number.removeprefix("call ") for call in calls]
    if len(numbers) == 1:
        return f"call {numbers[0]}"
    return f"calls {', '.join(numbers[:-1])} and {numbers[-1]}"


def describe_structured(expectation: Expectation) -> str:
    return scoped(expectation, "structured outputs match their tools' output schemas")


def evaluate_structured(expectation: Expectation, record: RunRecord) -> Outcome:
    # Calls of tools without an outputSchema carry no schemaValidation: nothing to check, so they are skipped.
    checked = [call for call in record.calls_in(expectation.get("turn")) if call.schema_validation is not None]
    invalid = [call for call in checked if call.schema_validation and call.schema_validation.get("valid") is not True]
    expected = describe_structured(expectation)
    if not checked:
        return passed(expected, "no call had an output schema to check")
    if not invalid:
        return passed(expected, f"{count(len(checked), 'structured output')} valid")
    diff = [
        DiffEntry(
            "result_mismatch",
            f"{call.label}: {(call.schema_validation or {}).get('message') or 'invalid structured output'}",
            call.index,
        )
        for call in invalid
    ]
    return failed(expected, f"{len(invalid)} of {count(len(checked), 'structured output')} invalid", *diff)


KINDS = [
    Kind(
        name="tool_not_called",
        description="A tool (or any of several tools) was not called.",
        params={"tool": TOOL, "tools": TOOLS},
        evaluate=evaluate_not_called,
        describe=describe_not_called,
        one_of=("tool", "tools"),
    ),
    Kind(
        name="only_tools",
        description="No tool outside this list was called.",
        params={"tools": TOOLS},
        evaluate=evaluate_only_tools,
        describe=describe_only_tools,
        required=("tools",),
    ),
    Kind(
        name="no_redundant_calls",
        description="No tool called twice with the same arguments (beyond an allowance).",
        params={"allowance": count_param("How many repeated calls to tolerate (default 0).")},
        evaluate=evaluate_no_redundant,
        describe=describe_no_redundant,
    ),
    Kind(
        name="max_tool_calls",
        description="At most this many tool calls, nested calls included.",
        params={"max": max_param("The most tool calls allowed.")},
        evaluate=evaluate_max_calls,
        describe=describe_max_calls,
        required=("max",),
    ),
    Kind(
        name="no_tool_errors",
        description="No tool call returned an error.",
        params={},
        evaluate=evaluate_no_errors,
        describe=describe_no_errors,
    ),
    Kind(
        name="structured_output_valid",
        description="Every structured output matches its tool's outputSchema (tools without one are skipped).",
        params={},
        evaluate=evaluate_structured,
        describe=describe_structured,
    ),
]
