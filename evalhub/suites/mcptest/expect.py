"""mcptest agent `expect` assertions (target + matcher + transform + message) as EvalHub expectations. Django-free.

Each assertion maps to expectations, a judge rubric (`llm-judge`), or a note saying why it did not map. Matchers
translate one to one (`matchers`); targets map to the kind reading the same value: `tool_names` (also for
`tool_calls[i].name` and `tool_calls.length`, through a jq step), `tool_called` args, `tool_result`, `final_answer`.
A mapping that checks less than mcptest would is kept and noted as approximated, never silently.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from evalhub.suites.mcptest.matchers import Refused, at_path, jq_program, translate
from scorers.expectations.kinds import KINDS


@dataclass(frozen=True)
class Note:
    pointer: str
    status: Literal["unsupported", "approximated"]
    reason: str

    def __str__(self) -> str:
        return f"{self.pointer}: {self.status}: {self.reason}"


@dataclass
class Mapped:
    expectations: list[dict[str, Any]] = field(default_factory=list)
    rubrics: list[dict[str, Any]] = field(default_factory=list)  # {"rubric": text, "threshold": x}
    notes: list[Note] = field(default_factory=list)


STOP_REASONS = {
    "completed": "completed",
    "turn_budget": "max_turns",
    "token_budget": "token_budget",
    "tool_call_budget": "max_tool_calls",
    "time_budget": "time_limit",
}
_CALL = re.compile(r"^tool_calls\[(\d+)\]\.(name|args(?:\.(.+))?)$")
_RESULT = re.compile(r"^tool_results\[(\d+)\]\.(isError|result(?:\.(.+))?)$")


def map_expects(expects: Any, pointer: str, *, turn_offset: int = 0) -> Mapped:
    """`turn_offset` is EvalHub's turn number of mcptest's per_turn[0] (1 when a prompt precedes the turns)."""
    out = Mapped()
    if isinstance(expects, Mapping):  # the long form: {assertions: [...], max_duration_ms, response_headers…}
        for key, value in expects.items():
            if key == "max_duration_ms" and isinstance(value, int):
                out.expectations.append({"kind": "max_duration_ms", "max": value})
            elif key != "assertions":
                out.notes.append(Note(f"{pointer}/{key}", "unsupported", _long_form_key(str(key))))
        expects, pointer = expects.get("assertions") or [], f"{pointer}/assertions"
    items = [_in_turn(item if isinstance(item, Mapping) else {}) for item in expects or []]
    # Call positions are counted within a turn (mcptest's call_index is local to it), so each turn has its names.
    names = {turn: _known_names([item for t, item in items if t == turn]) for turn, _ in items}
    for index, (turn, item) in enumerate(items):
        before = len(out.expectations)
        _map_one(item, f"{pointer}/{index}", names[turn], out)
        if turn is not None:
            _scope(out, before, turn + turn_offset, f"{pointer}/{index}")
    return out


_TARGETS = re.compile(r"^(tool_names|tool_calls|tool_results|redundant_tool_calls|final_response|conversation)\b")


def _long_form_key(key: str) -> str:
    """Why a key of the long form `expect: {assertions: [...], …}` did not map."""
    if _TARGETS.match(key):
        # A natural guess at the format: the target as a key. Say how it is written instead.
        return (
            f"{key} is an assertion target, not a key of expect: write it under expect (or expect.assertions) "
            f"as `- target: {key}` with `matcher: {{…}}`"
        )
    return "no EvalHub check of this (HTTP level)"


_PER_TURN = re.compile(r"^conversation\.per_turn\[(\d+)\]\.(.+)$")


def _in_turn(item: Mapping[str, Any]) -> tuple[int | None, Mapping[str, Any]]:
    """(turn, the assertion with its target relative to the turn) for `conversation.per_turn[i].…` targets."""
    found = _PER_TURN.match(str(item.get("target", "")))
    return (int(found.group(1)), {**item, "target": found.group(2)}) if found else (None, item)


def _scope(out: Mapped, first: int, turn: int, pointer: str) -> None:
    """Scope the expectations added from `first` on to `turn`; one about the whole run cannot be, so it is dropped."""
    kept = []
    for expectation in out.expectations[first:]:
        if KINDS[expectation["kind"]].whole_run:
            out.notes.append(Note(pointer, "unsupported", f"{expectation['kind']} is about the whole run, not a turn"))
        else:
            kept.append(expectation | {"turn": turn})
    out.expectations[first:] = kept


def _known_names(items: list[Mapping[str, Any]]) -> dict[int, str]:
    """Call position → tool name, from `tool_calls[i].name` exact assertions: args and results need the tool."""
    names = {}
    for item in items:
        found = _CALL.match(str(item.get("target", "")))
        matcher = item.get("matcher")
        if found and found.group(2) == "name" and isinstance(matcher, Mapping) and set(matcher) == {"exact"}:
            names[int(found.group(1))] = str(matcher["exact"])
    return names


def _call_selector(position: int, names: dict[int, str]) -> tuple[dict[str, Any] | str, bool]:
    """The `call` selector of the tool at overall position i: exact when every earlier call's tool is known."""
    if all(i in names for i in range(position)):
        nth = 1 + sum(1 for i in range(position) if names[i] == names[position])
        return ("first" if nth == 1 else {"nth": nth}), True
    return "first", False


def _map_one(item: Mapping[str, Any], pointer: str, names: dict[int, str], out: Mapped) -> None:
    target, matcher = str(item.get("target", "")), item.get("matcher")
    if not isinstance(matcher, Mapping) or len(matcher) != 1:
        out.notes.append(Note(f"{pointer}/matcher", "unsupported", "a matcher has exactly one key"))
        return
    name = next(iter(matcher))
    before = len(out.expectations)
    try:
        program = jq_program(item["transform"]) if item.get("transform") is not None else None
        reason = _dispatch(target, matcher, program, names, pointer, out)
    except Refused as refused:
        reason = str(refused)
    if reason:
        del out.expectations[before:]
        out.notes.append(Note(pointer, "unsupported", f"target {target!r} with matcher {str(name)!r}: {reason}"))
    if item.get("message"):
        for expectation in out.expectations[before:]:
            expectation["description"] = str(item["message"])


def _dispatch(
    target: str, matcher: Mapping[str, Any], program: str | None, names: dict[int, str], pointer: str, out: Mapped
) -> str:
    """Append what the assertion maps to; return why it does not map ("" when it did). Raises Refused."""
    add = out.expectations.append
    ((name, argument),) = matcher.items()
    if target == "final_response" and name == "llm-judge":
        if program or not isinstance(argument, Mapping) or not argument.get("rubric"):
            return "llm-judge maps as a judge scorer: it needs a rubric, and a transform does not apply"
        out.rubrics.append({"rubric": str(argument["rubric"]), "threshold": argument.get("threshold")})
        return ""
    if (call := _CALL.match(target)) and call.group(2) == "name":
        # The name at position i: the i-th tool name, exactly as mcptest reads it.
        expected = _translated(matcher, pointer, out)
        add({"kind": "tool_names", "transform": _then(f".[{int(call.group(1))}]", program), "matches": expected})
        return ""
    if call:
        position = int(call.group(1))
        if position not in names:
            return f"no tool_calls[{position}].name exact assertion says which tool to check"
        path = call.group(3).split(".") if call.group(3) else []
        args: Any = _translated(matcher, pointer, out)
        for part in reversed(path):
            args = {part: args}
        selector, exact = _call_selector(position, names)
        expectation = {"kind": "tool_called", "tool": names[position], "args": args, "call": selector}
        add(expectation | ({"transform": at_path(program, path)} if program else {}))
        if not exact:
            out.notes.append(
                Note(pointer, "approximated", "earlier calls' tools unknown: checks the tool's first call")
            )
        return ""
    if result := _RESULT.match(target):
        return _result(int(result.group(1)), result, matcher, program, names, pointer, out)
    if target in ("tool_names", "tool_calls.length"):
        first = "length" if target == "tool_calls.length" else None
        transform = _then(first, program) if first else program
        expected = _translated(matcher, pointer, out)
        add({"kind": "tool_names", "matches": expected} | ({"transform": transform} if transform else {}))
        return ""
    if target == "final_response":
        expected = _translated(matcher, pointer, out)
        add({"kind": "final_answer", "matches": expected} | ({"transform": program} if program else {}))
        return ""
    if program:
        return "a transform applies to tool calls, names, results and the final response only"
    if target == "redundant_tool_calls":
        if name != "exact" or not isinstance(argument, int):
            return "only exact counts map"
        add({"kind": "no_redundant_calls"} | ({"allowance": argument} if argument else {}))
        if argument:
            out.notes.append(Note(pointer, "approximated", f"allows up to {argument} repeated calls, not exactly"))
        return ""
    if target == "conversation.stop_reason":
        if name != "exact" or not isinstance(argument, str) or argument not in STOP_REASONS:
            return f"only exact with one of {', '.join(STOP_REASONS)}"
        add({"kind": "stop_reason", "equals": STOP_REASONS[argument]})
        return ""
    return "no EvalHub expectation reads this target"


def _then(first: str | None, program: str | None) -> str | None:
    """Two jq steps as one program (either may be missing)."""
    steps = [step for step in (first, program) if step]
    return " | ".join(f"({step})" if len(steps) > 1 else step for step in steps) or None


def _translated(matcher: Mapping[str, Any], pointer: str, out: Mapped) -> Any:
    translated = translate(matcher)
    out.notes += [Note(pointer, "approximated", note) for note in translated.approximations]
    return translated.expected


def _result(
    position: int,
    found: re.Match[str],
    matcher: Mapping[str, Any],
    program: str | None,
    names: dict[int, str],
    pointer: str,
    out: Mapped,
) -> str:
    if position not in names:
        if found.group(2) == "isError" and dict(matcher) == {"exact": False} and not program:
            out.expectations.append({"kind": "no_tool_errors"})
            out.notes.append(Note(pointer, "approximated", "checks that no tool call errored, not only this one"))
            return ""
        return f"no tool_calls[{position}].name exact assertion says which tool's result to check"
    path = "isError" if found.group(2) == "isError" else (found.group(3) or "")
    selector, exact = _call_selector(position, names)
    expectation = {
        "kind": "tool_result",
        "tool": names[position],
        "call": selector,
        "path": f"$.{path}" if path else "$",
        "matches": _translated(matcher, pointer, out),
    }
    out.expectations.append(expectation | ({"transform": program} if program else {}))
    if not exact:
        out.notes.append(Note(pointer, "approximated", "earlier calls' tools unknown: checks the tool's first call"))
    return ""
