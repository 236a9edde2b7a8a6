"""The agent loop: the model talks, the MCP server's tools answer, until the model stops or a budget does.

This is the "act" step of a run (see runs/pipeline.py). Other strategies (one model turn, a direct tool call)
can sit beside it with the same inputs: an open MCP connection, a provider client and a Recorder.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Protocol

import anyio

from evalhub.mcp_client.connection import Connection
from evalhub.model_client.client import ProviderClient
from evalhub.model_client.results import ToolCall
from runs.budgets import Budgets
from runs.code_mode import DIRECT
from runs.code_mode.dispatch import calls_counted, offered_tools, perform
from runs.fault_injection.connection import take_injected
from runs.models import Run
from runs.record_limits import MODEL_MESSAGE_BYTES, TOOL_CONTENT_TO_MODEL_BYTES, cap_text
from runs.recorder import Recorder
from runs.tool_results import as_model_content, check_output_schema
from runs.variants.surface import Surface, apply_variant, parse_variant


@dataclass(frozen=True)
class AgentTask:
    model: str
    prompt: str
    system_prompt: str
    max_turns: int
    max_tool_calls: int
    max_tokens: int | None = None  # per model call
    budgets: Budgets = field(default_factory=Budgets)
    tool_mode: str = DIRECT  # "code": the model writes programs that call the tools (runs/code_mode)
    # A shipped eval's own messages (chat format), sent instead of `prompt` alone.
    messages: tuple[dict[str, Any], ...] = ()
    # The tool-surface variant this run offers instead of the server's own (runs/variants); None: as served.
    variant: dict[str, Any] | None = None

    def surface(self, tools: list[dict[str, Any]]) -> Surface:
        """What the model is offered of `tools`, and the real tool behind each offered name."""
        return apply_variant(parse_variant(self.variant) if self.variant else None, tools)


class FollowUps(Protocol):
    """The user's side of a conversation (runs/conversation/driver.py): the next message after each answer."""

    stop_reason: str

    async def next_message(self, answer: str) -> str | None: ...


def openai_tool(tool: dict[str, Any]) -> dict[str, Any]:
    """An MCP tool as an OpenAI function tool."""
    function: dict[str, Any] = {"name": tool["name"], "parameters": tool.get("inputSchema") or {"type": "object"}}
    if tool.get("description"):
        function["description"] = tool["description"]
    return {"type": "function", "function": function}


async def run_agent(
    *,
    task: AgentTask,
    tools: list[dict[str, Any]],
    conn: Connection,
    client: ProviderClient,
    recorder: Recorder,
    follow_ups: FollowUps | None = None,
) -> str:
    """Drive the conversation and return the stop reason. Provider and MCP errors propagate to the pipeline.

    With `follow_ups`, an answer is the end of a user turn, not of the run: the next user message is sent, and
    max_turns, max_tool_calls and the budgets count over the whole conversation."""
    surface = task.surface(tools)
    offered = [
        openai_tool(tool) for tool in offered_tools(task.tool_mode, surface.tools, max_tool_calls=task.max_tool_calls)
    ]
    messages = opening_messages(task)
    calls_made = 0

    for _turn in range(task.max_turns):
        if (reached := task.budgets.reached(recorder.run)) is not None:
            # A cancel asked for meanwhile still names the stop.
            return Run.StopReason.CANCELLED if await recorder.cancel_requested() else reached
        if not await recorder.entering_unless_cancelled(f"model call {len(recorder.steps) + 1}"):
            return Run.StopReason.CANCELLED
        result = await anyio.to_thread.run_sync(
            lambda: client.chat(messages=messages, model=task.model, tools=offered or None, max_tokens=task.max_tokens),
            abandon_on_cancel=True,
        )
        await recorder.model_answered(result)
        messages.append(_capped_message(result.message))
        if not result.tool_calls:
            await recorder.answered()
            follow_up = await follow_ups.next_message(result.text) if follow_ups else None
            if follow_up is None:
                return follow_ups.stop_reason if follow_ups else Run.StopReason.COMPLETED
            messages.append({"role": "user", "content": follow_up})
            continue
        for call in result.tool_calls:
            if calls_made >= task.max_tool_calls:
                return Run.StopReason.MAX_TOOL_CALLS
            await recorder.entering(f"tool call {call.name}")
            recorder.calling(call.name, call.arguments)
            record = await perform(
                task.tool_mode,
                call,
                tools=surface.real,
                conn=conn,
                call_tool=call_tool,
                calls_left=task.max_tool_calls - calls_made,
            )
            calls_made += calls_counted(task.tool_mode, record)
            await recorder.tool_called(record)
            content = cap_text(as_model_content(record["result"]), TOOL_CONTENT_TO_MODEL_BYTES).value
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return Run.StopReason.MAX_TURNS


def opening_messages(task: AgentTask) -> list[dict[str, Any]]:
    """What the model is sent first: the system prompt, then the eval's messages or the scenario's prompt."""
    messages: list[dict[str, Any]] = []
    if task.system_prompt:
        messages.append({"role": "system", "content": task.system_prompt})
    messages.extend(task.messages or [{"role": "user", "content": task.prompt}])
    return messages


def _capped_message(message: dict[str, Any]) -> dict[str, Any]:
    """The model's own message as sent back to it: a 50 MB answer is not sent again whole with every turn."""
    if not isinstance(message.get("content"), str):
        return message
    return {**message, "content": cap_text(message["content"], MODEL_MESSAGE_BYTES).value}


async def call_tool(call: ToolCall, tool: dict[str, Any] | None, conn: Connection) -> dict[str, Any]:
    """Execute one tool call and return its EvalToolCall record. `tool` is the server's tool the name the model
    called stands for: under a variant (runs/variants) its real name may differ, and is what the server is sent
    and the record's `toolName`; the model's name is kept as `offeredName`."""
    timestamp = int(time.time() * 1000)
    started = time.perf_counter()
    injected = None
    # The model's own mistakes, answered here as a real MCP client would (an error result it can read) and never
    # sent to the server: the record says so (`refused`), and the verdict blames the agent, not the server.
    refused = ""
    if call.arguments is None:
        refused = "invalid_arguments"
        result: dict[str, Any] = {
            "content": [{"type": "text", "text": f"Invalid arguments: not a JSON object ({call.arguments_error})."}],
            "isError": True,
        }
    elif tool is None:
        refused = "unknown_tool"
        result = {"content": [{"type": "text", "text": f"Unknown tool {call.name!r}."}], "isError": True}
    else:
        result = dict(await conn.call_tool(tool["name"], call.arguments))
        injected = take_injected(result)
    real_name = tool["name"] if tool is not None else call.name
    record: dict[str, Any] = {
        "toolName": real_name,
        "args": call.arguments if call.arguments is not None else {},
        "result": result,
        "timestamp": timestamp,
        "durationMs": round((time.perf_counter() - started) * 1000),
        "isError": bool(result.get("isError")),
        "nestedCalls": [],
    }
    if real_name != call.name:
        record["offeredName"] = call.name
    if injected is not None:
        record["injectedFault"] = injected
    if refused:
        record["refused"] = refused
    if call.arguments is None:
        record["rawArguments"] = call.raw_arguments
    validation = check_output_schema(tool, result)
    if validation is not None:
        record["schemaValidation"] = validation
    return record
