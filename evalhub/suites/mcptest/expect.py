"""mcptest agent `expect` assertions (target + matcher) as EvalHub expectations. Django-free.

Each assertion maps to expectations, a judge rubric (`llm-judge`), or a note saying why it did not map. A mapping
that checks less than mcptest would (a tool called at all rather than at position i) is kept and noted as
approximated, never silently.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

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
_FINAL_OPS = {"exact": "equals", "contains": "contains", "icontains": "icontains", "regex": "regex"}
_FINAL_OPS |= {"starts-with": "starts_with"}


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
    ((name, argument),) = matcher.items()
    before = len(out.expectations)
    reason = _dispatch(target, str(name), argument, names, pointer, out)
    if reason:
        out.notes.append(Note(pointer, "unsupported", f"target {target!r} with matcher {name!r}: {reason}"))
    if item.get("message"):
        for expectation in out.expectations[before:]:
            expectation["description"] = str(item["message"])


def _dispatch(target: str, name: str, argument: Any, names: dict[int, str], pointer: str, out: Mapped) -> str:
    """Append what the assertion maps to; return why it does not map ("" when it did)."""
    add, note = out.expectations.append, out.notes.append
    if call := _CALL.match(target):
        position = int(call.group(1))
        if call.group(2) == "name":
            if name != "exact":
                return "only exact names map"
            add({"kind": "tool_called", "tool": str(argument)})
            note(Note(pointer, "approximated", f"checks {argument} was called, not that it was call {position + 1}"))
            return ""
        if position not in names:
            return f"no tool_calls[{position}].name exact assertion says which tool to check"
        value = matcher_value(name, argument)
        if value is _NO_VALUE:
            return "this matcher has no argument matcher in EvalHub"
        args: Any = value
        for part in reversed((call.group(3) or "").split(".") if call.group(3) else []):
            args = {part: args}
        selector, exact = _call_selector(position, names)
        add({"kind": "tool_called", "tool": names[position], "args": args, "call": selector})
        if not exact:
            note(Note(pointer, "approximated", "earlier calls' tools unknown: checks the tool's first call"))
        return ""
    if result := _RESULT.match(target):
        position = int(result.group(1))
        if position not in names:
            if result.group(2) == "isError" and name == "exact" and argument is False:
                add({"kind": "no_tool_errors"})
                note(Note(pointer, "approximated", "checks that no tool call errored, not only this one"))
                return ""
            return f"no tool_calls[{position}].name exact assertion says which tool's result to check"
        path = "isError" if result.group(2) == "isError" else (result.group(3) or "")
        check = result_check(name, argument)
        if check is None:
            return "tool_result checks equals, contains, regex, icontains or schema"
        selector, exact = _call_selector(position, names)
        add(
            {"kind": "tool_result", "tool": names[position], "call": selector, "path": f"$.{path}" if path else "$"}
            | check
        )
        if not exact:
            note(Note(pointer, "approximated", "earlier calls' tools unknown: checks the tool's first call"))
        return ""
    if target == "tool_calls.length":
        if name != "exact" or not isinstance(argument, int):
            return "only exact counts map"
        add({"kind": "max_tool_calls", "max": argument})
        if argument:
            note(Note(pointer, "approximated", f"checks at most {argument} calls, not exactly"))
        return ""
    if target == "tool_names":
        return _tool_names(name, argument, pointer, out)
    if target == "redundant_tool_calls":
        if name != "exact" or not isinstance(argument, int):
            return "only exact counts map"
        add({"kind": "no_redundant_calls"} | ({"allowance": argument} if argument else {}))
        if argument:
            note(Note(pointer, "approximated", f"allows up to {argument} repeated calls, not exactly"))
        return ""
    if target == "final_response":
        return _final(name, argument, out)
    if target == "conversation.stop_reason":
        if name != "exact" or not isinstance(argument, str) or argument not in STOP_REASONS:
            return f"only exact with one of {', '.join(STOP_REASONS)}"
        add({"kind": "stop_reason", "equals": STOP_REASONS[argument]})
        return ""
    return "no EvalHub expectation reads this target"


def _tool_names(name: str, argument: Any, pointer: str, out: Mapped) -> str:
    listed = [argument] if isinstance(argument, str) else argument
    names_given = isinstance(listed, list) and all(isinstance(t, str) for t in listed)
    if not names_given and name != "not":
        return "needs tool names"
    if name == "exact":
        out.expectations.append(
            {"kind": "tool_sequence", "tools": listed, "mode": "exact"}
            if listed
            else {"kind": "max_tool_calls", "max": 0}
        )
    elif name in ("contains", "contains-all"):
        out.expectations += [{"kind": "tool_called", "tool": tool} for tool in listed]
    elif name == "not" and not isinstance(argument, Mapping):
        return "not takes a matcher: {not: {contains: [names]}} maps to tool_not_called"
    elif name == "not" and isinstance(argument, Mapping) and len(argument) == 1:
        ((inner, value),) = argument.items()
        tools = [value] if isinstance(value, str) else value
        if inner not in ("contains", "contains-any", "contains-all") or not isinstance(tools, list) or not tools:
            return "only not contains / contains-any map"
        if inner == "contains-all" and len(tools) > 1:
            return "not contains-all (not every one of several tools) has no EvalHub expectation"
        out.expectations.append({"kind": "tool_not_called", "tools": [str(t) for t in tools]})
    else:
        return "no EvalHub expectation for this matcher on the tool list"
    return ""


def _final(name: str, argument: Any, out: Mapped) -> str:
    add = out.expectations.append
    if name in _FINAL_OPS and isinstance(argument, str):
        add({"kind": "final_answer", _FINAL_OPS[name]: argument})
    elif name == "contains-all" and isinstance(argument, list) and argument:
        out.expectations += [{"kind": "final_answer", "contains": str(text)} for text in argument]
    elif name == "is-json":
        schema = argument.get("schema") if isinstance(argument, Mapping) else None
        add({"kind": "final_answer", "json_schema": schema} if schema else {"kind": "final_answer", "is_json": True})
    elif name == "not" and isinstance(argument, Mapping) and set(argument) == {"contains"}:
        add({"kind": "final_answer", "not_contains": str(argument["contains"])})
    elif name == "llm-judge" and isinstance(argument, Mapping) and argument.get("rubric"):
        out.rubrics.append({"rubric": str(argument["rubric"]), "threshold": argument.get("threshold")})
    else:
        return "no final_answer check for this matcher"
    return ""


_NO_VALUE = object()


def matcher_value(name: str, argument: Any) -> Any:
    """An mcptest matcher as an EvalHub expected value (literal or `$` matcher), or _NO_VALUE."""
    if name == "exact":
        return argument
    if name == "regex" and isinstance(argument, str):
        return {"$regex": argument}
    if name == "contains" and isinstance(argument, str):
        return {"$contains": argument}
    if name == "icontains" and isinstance(argument, str):
        return {"$icontains": argument}
    exact_options = isinstance(argument, list) and all(isinstance(o, Mapping) and set(o) == {"exact"} for o in argument)
    if name in ("oneOf", "anyOf") and exact_options:
        return {"$oneOf": [option["exact"] for option in argument]}
    if name == "schema" and isinstance(argument, Mapping) and set(argument) == {"type"}:
        return {"$type": argument["type"]}
    return _NO_VALUE


def result_check(name: str, argument: Any) -> dict[str, Any] | None:
    """An mcptest matcher as a tool_result check, or None."""
    if name == "exact":
        return {"equals": argument}
    if name == "contains" and isinstance(argument, str):  # an object subset or a multiset has no equivalent
        return {"contains": argument}
    if name == "regex" and isinstance(argument, str):
        return {"regex": argument}
    if name == "icontains" and isinstance(argument, str):
        return {"regex": f"(?i){re.escape(argument)}"}
    if name == "schema" and isinstance(argument, Mapping):
        return {"json_schema": dict(argument)}
    return None
