"""`propose_expectations`: expectations written from what a run did, for "Save as expectations".

A starting point for the author to loosen (a literal 48.85 often wants to become a `$range`), never stricter than
the run itself: evaluating a proposal against the run it came from scores 1.0.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from scorers.expectations.matchers import matcher_of
from scorers.expectations.record import RunRecord


def propose_expectations(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Expectations that the run of `record` meets: its tools and their first arguments, order, errors, stop."""
    run = RunRecord.from_record(record)
    first_calls = {call.tool: call for call in reversed(run.calls)}  # reversed, so each tool keeps its first call
    tools = list(dict.fromkeys(call.tool for call in run.calls))
    proposals: list[dict[str, Any]] = []
    for tool in tools:
        proposal: dict[str, Any] = {"kind": "tool_called", "tool": tool}
        args = first_calls[tool].args
        if isinstance(args, Mapping) and args:
            proposal["args"] = {key: literal(value) for key, value in args.items()}
        proposals.append(proposal)
    if len(tools) >= 2:
        proposals.append({"kind": "tool_sequence", "tools": tools, "mode": "in_order"})
    if run.calls and not any(call.is_error for call in run.calls):
        proposals.append({"kind": "no_tool_errors"})
    proposals.append({"kind": "max_tool_calls", "max": len(run.calls)})
    if run.run.get("stopReason") == "completed":
        proposals.append({"kind": "stop_reason", "equals": "completed"})
    return proposals


def literal(value: Any) -> Any:
    """`value` as an expected literal: an object that would read as a matcher is wrapped in `$oneOf`."""
    if matcher_of(value) is not None:
        return {"$oneOf": [value]}
    if isinstance(value, Mapping):
        return {key: literal(sub) for key, sub in value.items()}
    if isinstance(value, list):
        return [literal(sub) for sub in value]
    return value
