"""A fork's one change, and where its run stops replaying and goes live. Pure.

A fork continues a recorded run from transcript step N (1-based: the N-th model call) with one change:
- `tool_result`: the result of the `call`-th tool call (0-based) that step N asked for is replaced by `result`; model
  calls 1..N and the tool calls before the replaced one are replayed, everything after it is live.
- `tool`: tool `tool`'s `description` and/or `input_schema` as the model sees it, from model call N on;
- `system_prompt`: the system prompt the model is sent, from model call N on;
- `model`: another model of the run's provider answers model call N and the ones after it.
For the last three, model calls 1..N-1 and the tool calls they asked for are replayed, the rest is live.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

KINDS = ("tool_result", "tool", "system_prompt", "model")
_FIELDS = {
    "tool_result": {"kind", "call", "result"},
    "tool": {"kind", "tool", "description", "input_schema"},
    "system_prompt": {"kind", "system_prompt"},
    "model": {"kind", "model"},
}


@dataclass(frozen=True)
class Change:
    kind: str
    call: int = 0
    result: dict[str, Any] = field(default_factory=dict)
    tool: str = ""
    description: str | None = None
    input_schema: dict[str, Any] | None = None
    system_prompt: str = ""
    model: str = ""

    def to_dict(self) -> dict[str, Any]:
        values = {
            "kind": self.kind,
            "call": self.call,
            "result": self.result,
            "tool": self.tool,
            "description": self.description,
            "input_schema": self.input_schema,
            "system_prompt": self.system_prompt,
            "model": self.model,
        }
        return {key: value for key, value in values.items() if key in _FIELDS[self.kind] and value is not None}

    def summary(self) -> str:
        """One line for the run page and lists."""
        return {
            "tool_result": f"tool call {self.call + 1}'s result replaced",
            "tool": f"tool {self.tool!r} changed",
            "system_prompt": "system prompt changed",
            "model": f"model {self.model!r}",
        }[self.kind]


def parse_change(data: Any) -> Change:
    """A change from the API's JSON; ValueError names the field and what to send instead."""
    if not isinstance(data, dict):
        raise ValueError("change: send an object with a kind, one of " + ", ".join(KINDS) + ".")
    kind = data.get("kind")
    if kind not in KINDS:
        raise ValueError(f"change.kind: {kind!r} is not one of " + ", ".join(KINDS) + ".")
    unknown = sorted(set(data) - _FIELDS[kind])
    if unknown:
        raise ValueError(f"change.{unknown[0]}: not a field of a {kind} change (its fields: {sorted(_FIELDS[kind])}).")
    if kind == "tool_result":
        call, result = data.get("call", 0), data.get("result")
        if not isinstance(call, int) or isinstance(call, bool) or call < 0:
            raise ValueError("change.call: the index (0 for the first) of the step's tool call to replace.")
        if not isinstance(result, dict) or not isinstance(result.get("content"), list):
            raise ValueError('change.result: an MCP tool result, e.g. {"content": [{"type": "text", "text": "…"}]}.')
        return Change(kind, call=call, result=result)
    if kind == "tool":
        tool, description, schema = data.get("tool"), data.get("description"), data.get("input_schema")
        if not isinstance(tool, str) or not tool:
            raise ValueError("change.tool: the name of the tool to change.")
        if description is None and schema is None:
            raise ValueError("change: a tool change needs a description, an input_schema, or both.")
        if description is not None and not isinstance(description, str):
            raise ValueError("change.description: text.")
        if schema is not None and (not isinstance(schema, dict) or schema.get("type") != "object"):
            raise ValueError('change.input_schema: a JSON Schema object with "type": "object".')
        return Change(kind, tool=tool, description=description, input_schema=schema)
    if kind == "system_prompt":
        prompt = data.get("system_prompt")
        if not isinstance(prompt, str):
            raise ValueError("change.system_prompt: the new system prompt, as text (empty removes it).")
        return Change(kind, system_prompt=prompt)
    model = data.get("model")
    if not isinstance(model, str) or not model.strip():
        raise ValueError("change.model: the name of a model the run's provider serves.")
    return Change(kind, model=model.strip())


def changed_request(request: dict[str, Any], change: Change) -> dict[str, Any]:
    """A model request (ProviderClient.chat's keyword arguments) as the fork's change makes it."""
    if change.kind == "model":
        return {**request, "model": change.model}
    if change.kind == "system_prompt":
        messages = [m for m in request["messages"] if m.get("role") != "system"]
        if change.system_prompt:
            messages.insert(0, {"role": "system", "content": change.system_prompt})
        return {**request, "messages": messages}
    if change.kind == "tool":
        return {**request, "tools": [_changed_tool(tool, change) for tool in request.get("tools") or []] or None}
    return request


def _changed_tool(tool: dict[str, Any], change: Change) -> dict[str, Any]:
    function = dict(tool.get("function") or {})
    if function.get("name") != change.tool:
        return tool
    if change.description is not None:
        function["description"] = change.description
    if change.input_schema is not None:
        function["parameters"] = change.input_schema
    return {**tool, "function": function}


@dataclass(frozen=True)
class Boundary:
    """Where a fork goes live: model calls from index `model_from`, MCP exchanges from index `mcp_from`;
    `replace` is the index of the MCP exchange answered with the changed tool result, if any."""

    model_from: int
    mcp_from: int
    replace: int | None = None


def boundary(*, at_step: int, change: Change, model_calls: int, mcp_turns: list[int]) -> Boundary:
    """Where the fork of a cassette with `model_calls` model exchanges goes live. `mcp_turns` holds, for each MCP
    exchange in order, how many model calls had answered when it was made. ValueError names what is wrong."""
    if at_step < 1 or at_step > model_calls:
        raise ValueError(f"at_step: the run made {model_calls} model call(s); fork at a step from 1 to {model_calls}.")
    if change.kind == "tool_result":
        calls = [index for index, turn in enumerate(mcp_turns) if turn == at_step]
        if change.call >= len(calls):
            raise ValueError(
                f"change.call: step {at_step} made {len(calls)} tool call(s) on the server; "
                f"there is no tool call {change.call + 1} to replace."
            )
        return Boundary(model_from=at_step, mcp_from=calls[change.call], replace=calls[change.call])
    live = [index for index, turn in enumerate(mcp_turns) if turn >= at_step]
    return Boundary(model_from=at_step - 1, mcp_from=live[0] if live else len(mcp_turns))
