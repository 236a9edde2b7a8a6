"""Every kind of expectation, by name, in the order an editor lists them."""

from __future__ import annotations

from scorers.expectations import answer, called, calls, names, run_checks, sequence, tool_result
from scorers.expectations.spec import Kind

_tool_not_called, _only_tools, _no_redundant, _max_calls, _no_errors, _structured = calls.KINDS

KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in [
        called.KIND,
        _tool_not_called,
        _only_tools,
        sequence.KIND,
        names.KIND,
        _no_redundant,
        _max_calls,
        _no_errors,
        _structured,
        tool_result.KIND,
        answer.KIND,
        *run_checks.KINDS,
    ]
}

# Name → one line an editor and the docs show.
KIND_DESCRIPTIONS: dict[str, str] = {name: kind.description for name, kind in KINDS.items()}
