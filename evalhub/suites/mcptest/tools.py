"""mcptest tool tests as execution-level scenarios: the tool called directly, no model, every assertion of the
test an expectation that gates (a run passes only when all do, as in mcptest). Django-free.

The long form `expect: {assertions: [...], max_duration_ms}` keeps both; each assertion's `message` is its
expectation's description; `timeout_ms` (or `performance.default_timeout_ms`) becomes the run's time limit, which
includes connecting to the server and has whole seconds within 5..1200: reported as an approximation. A run that
reaches it fails (stop reason time_limit, cause budget).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping
from typing import Any

from evalhub.server_evals.mapping import execution_prompt
from evalhub.suites.mcptest.context import Context
from evalhub.suites.mcptest.expect import Note, map_expects

MOST_SECONDS = 1200  # EvalHub's longest run


TOOL_UNSUPPORTED = {
    "transform": "request/response transforms run a subprocess, which EvalHub does not; transform the value "
    "with an assertion-level transform instead",
    "inject_error": "named error injection is not supported",
}


def tool_test(test: Mapping[str, Any], default_timeout: int | None, pointer: str, context: Context) -> None:
    """An execution-level scenario: the tool called directly, no model, every assertion gating (as in mcptest)."""
    context.items.append(pointer)
    tool, args = test["tool"], context.texts(test.get("args") or {}, f"{pointer}/args")
    expectations: list[dict[str, Any]] = [{"kind": "tool_called", "tool": tool, "args": args, "match": "exact"}]
    expect = test.get("expect") or []
    where = f"{pointer}/expect"
    if isinstance(expect, Mapping):  # the long form: {assertions: [...], max_duration_ms, response_headers…}
        if "max_duration_ms" in expect:
            context.items.append(f"{where}/max_duration_ms")
            expectations.append({"kind": "max_duration_ms", "max": expect["max_duration_ms"]})
        for key in expect:
            if key not in ("assertions", "max_duration_ms"):
                context.items.append(f"{where}/{key}")
                context.unsupported(f"{where}/{key}", "no EvalHub check of this (HTTP level)")
        expect, where = expect.get("assertions") or [], f"{where}/assertions"
    for index, item in enumerate(expect):
        context.items.append(f"{where}/{index}")
        expectations += _tool_assertion(tool, item, f"{where}/{index}", context)
    for key in test:
        if key in TOOL_UNSUPPORTED:
            context.unsupported(f"{pointer}/{key}", TOOL_UNSUPPORTED[key])
    scenario = {
        "name": context.scenario_name(test["name"], pointer),
        "server": test["server"],
        "provider": context.provider,
        "model": context.model,
        # mcptest calls the tool itself, with no model: EvalHub's execution level does the same.
        "level": "execution",
        # A copy: one object in two places would be written out as a YAML anchor and alias.
        "tool_call": {"tool": tool, "arguments": copy.deepcopy(args)},
        "prompt": execution_prompt(tool, args),
        "max_turns": 1,
        "expected_tools": [tool],
        "expectations": expectations,
    }
    timeout = test.get("timeout_ms", default_timeout)
    scenario["time_limit_seconds"] = _tool_timeout(timeout, pointer, "timeout_ms" in test, context)
    if test.get("tags"):
        scenario["tags"] = context.tags(test["tags"], pointer)
    context.scenario_variables(scenario)
    context.suite["scenarios"].append(scenario)


def _tool_assertion(tool: str, item: Mapping[str, Any], pointer: str, context: Context) -> list[dict[str, Any]]:
    """One result assertion as expectations, through the agent mapping (the test's one call is tool_calls[0])."""
    item = context.texts(item, pointer)
    target = item.get("target", "")
    if not target.startswith("result"):
        context.unsupported(pointer, f"target {target!r}: a tool test's targets start with result")
        return []
    rewritten = {**item, "target": f"tool_results[0].{target}"}
    mapped = map_expects([{"target": "tool_calls[0].name", "matcher": {"exact": tool}}, rewritten], "")
    # The first assertion only names the call; notes on the second are this assertion's, under its pointer.
    context.notes += [
        Note(pointer + n.pointer[2:], n.status, n.reason.replace("'tool_results[0].", "'"))
        for n in mapped.notes
        if n.pointer[:2] == "/1"
    ]
    return mapped.expectations[1:]


def _tool_timeout(timeout_ms: int | None, pointer: str, given: bool, context: Context) -> int:
    """A tool call's timeout as the run's time limit (connecting included), in whole seconds within 5..1200."""
    if timeout_ms is None:
        reason = (
            f"no timeout_ms: unbounded in mcptest; EvalHub bounds every run, here at its largest ({MOST_SECONDS} s)"
        )
        context.notes.append(Note(pointer, "approximated", reason))
        return MOST_SECONDS
    seconds = min(max(math.ceil(timeout_ms / 1000), 5), MOST_SECONDS)
    source = "timeout_ms" if given else "performance.default_timeout_ms"
    reason = f"{source} is the run's time limit, {seconds} s, connecting included (EvalHub allows 5 to 1200 s)"
    context.notes.append(Note(f"{pointer}/timeout_ms" if given else pointer, "approximated", reason))
    return seconds
