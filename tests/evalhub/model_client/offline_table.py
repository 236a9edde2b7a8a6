"""The offline model's prompt table: loading it and scoring the model on it through the real openai SDK.

Shared by tests/evalhub/model_client/test_offline_accuracy.py and bench/offline_accuracy.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalhub.model_client import OFFLINE_MODEL, ChatResult, ProviderClient, offline_config

FIXTURES = Path(__file__).parent / "fixtures"


def mcp_to_openai(tool: dict[str, Any]) -> dict[str, Any]:
    """An MCP tool as the agent loop offers it to a model: an OpenAI function tool."""
    return {
        "type": "function",
        "function": {
            "name": tool["name"],
            "description": tool.get("description", ""),
            "parameters": tool.get("inputSchema") or {"type": "object", "properties": {}},
        },
    }


def load_toolsets() -> dict[str, list[dict[str, Any]]]:
    raw = json.loads((FIXTURES / "mcp_tools.json").read_text())
    toolsets = {name: [mcp_to_openai(t) for t in tools] for name, tools in raw.items() if not name.startswith("_")}
    # Every list at once, except travel: it repeats the demo list's tool names.
    toolsets["all"] = [tool for name, tools in toolsets.items() if name != "travel" for tool in tools]
    return toolsets


def load_table() -> dict[str, list[dict[str, Any]]]:
    return json.loads((FIXTURES / "offline_prompts.json").read_text())


@dataclass
class Outcome:
    """How the model did on one row. `kind` is "call" (a tool with arguments was expected), "refusal" (no
    call, the answer must name the missing arguments), "no_tool" (no call) or "multi_step"."""

    id: str
    kind: str
    tool_ok: bool = False
    arguments_ok: bool = False
    ok: bool = False
    got: str = ""


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)

    def of_kind(self, *kinds: str) -> list[Outcome]:
        return [o for o in self.outcomes if o.kind in kinds]

    @property
    def failures(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.ok]

    @property
    def accuracy(self) -> float:
        return sum(o.ok for o in self.outcomes) / len(self.outcomes) if self.outcomes else 0.0


def describe(result: ChatResult) -> str:
    if result.tool_calls:
        return "; ".join(f"{c.name}({json.dumps(c.arguments)})" for c in result.tool_calls)
    return f"text: {result.text}"


def run_row(client: ProviderClient, row: dict[str, Any], toolsets: dict[str, list[dict[str, Any]]]) -> Outcome:
    if "steps" in row:
        return run_multi_step(client, row, toolsets)
    expect = row["expect"]
    result = client.chat(
        messages=[{"role": "user", "content": row["prompt"]}], model=OFFLINE_MODEL, tools=toolsets[row["toolset"]]
    )
    call = result.tool_calls[0] if result.tool_calls else None
    if expect["tool"] is not None:
        tool_ok = call is not None and call.name == expect["tool"]
        arguments_ok = tool_ok and call is not None and call.arguments == expect["arguments"]
        return Outcome(row["id"], "call", tool_ok, arguments_ok, arguments_ok, describe(result))
    if "missing" in expect:
        named = all(name in result.text for name in expect["missing"])
        return Outcome(row["id"], "refusal", call is None, named, call is None and named, describe(result))
    return Outcome(row["id"], "no_tool", call is None, True, call is None, describe(result))


def run_multi_step(client: ProviderClient, row: dict[str, Any], toolsets: dict[str, list[dict[str, Any]]]) -> Outcome:
    """Drive the model like the agent loop does: answer each expected call with the scripted result."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": row["prompt"]}]
    seen: list[str] = []
    for step in row["steps"]:
        result = client.chat(messages=messages, model=OFFLINE_MODEL, tools=toolsets[row["toolset"]])
        seen.append(describe(result))
        call = result.tool_calls[0] if result.tool_calls else None
        if call is None or call.name != step["tool"] or call.arguments != step["arguments"]:
            return Outcome(row["id"], "multi_step", got=" | ".join(seen))
        messages.append(result.message)
        content = step["result"] if isinstance(step["result"], str) else json.dumps(step["result"])
        messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    final = client.chat(messages=messages, model=OFFLINE_MODEL, tools=toolsets[row["toolset"]])
    seen.append(describe(final))
    ok = not final.tool_calls and all(fragment in final.text for fragment in row["final_contains"])
    return Outcome(row["id"], "multi_step", True, True, ok, " | ".join(seen))


def evaluate(rows: list[dict[str, Any]]) -> Report:
    toolsets = load_toolsets()
    with ProviderClient(offline_config()) as client:
        return Report([run_row(client, row, toolsets) for row in rows])
