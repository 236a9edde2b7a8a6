"""`tool_sequence`: tools called in an order — as a subsequence (`in_order`, the default) or exactly.

`in_order` allows other calls in between and repeats, the usual intent ("look up the weather, then search
flights"); `exact` pins the whole list of calls. A failure says where the order broke: the first expected tool
that never came after the previous one, and whether it was called earlier (out of order) or not at all (missing).
"""

from __future__ import annotations

from scorers.expectations.outcome import Category, DiffEntry, Outcome, failed, passed
from scorers.expectations.record import Call, RunRecord
from scorers.expectations.spec import TOOLS, Expectation, Kind, Param, scoped


def describe(expectation: Expectation) -> str:
    arrow = " → ".join(expectation["tools"])
    if expectation.get("mode") == "exact":
        return scoped(expectation, f"tools called exactly as {arrow}")
    return scoped(expectation, f"tools called in order {arrow}")


def _called(calls: tuple[Call, ...]) -> str:
    return "called: " + " → ".join(call.tool for call in calls) if calls else "no tool was called"


def evaluate(expectation: Expectation, record: RunRecord) -> Outcome:
    calls = record.calls_in(expectation.get("turn"))
    expected = describe(expectation)
    if expectation.get("mode") == "exact":
        breaks = _exact_breaks(expectation["tools"], calls)
    else:
        breaks = _in_order_breaks(expectation["tools"], calls)
    if breaks:
        return failed(expected, _called(calls), *breaks)
    return passed(expected, _called(calls))


def _in_order_breaks(tools: list[str], calls: tuple[Call, ...]) -> list[DiffEntry]:
    """The first expected tool that does not follow the previous one, explained; empty when the order holds."""
    position, previous = -1, None
    for tool in tools:
        following = next((i for i in range(position + 1, len(calls)) if calls[i].tool == tool), None)
        if following is not None:
            position, previous = following, calls[following]
            continue
        earlier = next((call for call in calls[: position + 1] if call.tool == tool), None)
        if earlier is not None and previous is not None:
            message = f"{tool} expected after {previous.tool} ({previous.number}) but only called before it"
            return [DiffEntry("out_of_order", f"{message} ({earlier.number})", earlier.index)]
        after = f" (expected after {previous.tool})" if previous is not None else ""
        return [DiffEntry("missing_call", f"{tool} was never called{after}")]
    return []


def _exact_breaks(tools: list[str], calls: tuple[Call, ...]) -> list[DiffEntry]:
    """The first position where the calls differ from the list, explained; empty when they are the same."""
    for position, tool in enumerate(tools, start=1):
        if position > len(calls):
            return [DiffEntry("missing_call", f"position {position}: expected {tool}, but no more tools were called")]
        call = calls[position - 1]
        if call.tool != tool:
            category: Category = "out_of_order" if call.tool in tools else "unexpected_call"
            return [DiffEntry(category, f"position {position}: expected {tool}, got {call.tool}", call.index)]
    if len(calls) > len(tools):
        extra = calls[len(tools)]
        return [DiffEntry("unexpected_call", f"position {len(tools) + 1}: extra call to {extra.tool}", extra.index)]
    return []


KIND = Kind(
    name="tool_sequence",
    description="Tools called in this order: as a subsequence (in_order, default) or exactly.",
    params={
        "tools": TOOLS,
        "mode": Param(
            {"enum": ["in_order", "exact"]},
            '"in_order" or "exact"',
            '"in_order" (default): these tools in this order, other calls allowed between; "exact": exactly these.',
        ),
    },
    evaluate=evaluate,
    describe=describe,
    required=("tools",),
)
