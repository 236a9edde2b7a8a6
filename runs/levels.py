"""The two levels of the evals/list proposal that are not the agent loop (runs/agent.py):

- invocation: one model turn with the server's tools offered; the calls the model asks for are recorded but not
  executed (their result says so), so the run shows which tool it picked and with which arguments;
- execution: no model; EvalHub calls one tool with fixed arguments, as a direct tool test.

Both act on an open connection with a Recorder, as the agent loop does, and return the stop reason.
"""

from __future__ import annotations

import time
from typing import Any

import anyio

from evalhub.mcp_client.connection import Connection
from evalhub.model_client.client import ProviderClient
from evalhub.model_client.results import ToolCall
from runs.agent import AgentTask, call_tool, openai_tool, opening_messages
from runs.models import Run
from runs.recorder import Recorder

# Plain on purpose: a judge reads it too, and wording about evals made a small judge grade the note, not the call.
NOT_EXECUTED = "(not executed)"


async def invoke_once(
    *, task: AgentTask, tools: list[dict[str, Any]], client: ProviderClient, recorder: Recorder
) -> str:
    """One model call; each tool call it asks for is recorded with a result saying it was not executed."""
    await recorder.entering("model call 1")
    surface = task.surface(tools)
    offered = [openai_tool(tool) for tool in surface.tools]
    result = await anyio.to_thread.run_sync(
        lambda: client.chat(
            messages=opening_messages(task), model=task.model, tools=offered or None, max_tokens=task.max_tokens
        ),
        abandon_on_cancel=True,
    )
    await recorder.model_answered(result)
    for call in result.tool_calls:
        content = [{"type": "text", "text": NOT_EXECUTED}]
        tool = surface.real_tool(call.name)
        # Under a variant the choice is recorded by the real tool's name, the model's beside it (runs/variants).
        renamed = {"offeredName": call.name} if tool is not None and tool["name"] != call.name else {}
        await recorder.tool_called(
            {
                **renamed,
                "toolName": tool["name"] if tool is not None else call.name,
                "args": call.arguments if call.arguments is not None else {},
                "result": {"content": content, "isError": False},
                "timestamp": int(time.time() * 1000),
                "durationMs": 0,
                "isError": False,
                "nestedCalls": [],
                "notExecuted": True,
            }
        )
    if result.text:
        # Its words are the answer; a turn that only picked tools has none to show.
        await recorder.answered()
    return Run.StopReason.COMPLETED


async def execute_directly(
    *, tool_call: dict[str, Any], tools: list[dict[str, Any]], conn: Connection, recorder: Recorder
) -> str:
    """Call the tool as given; an unknown tool is an error result, as the agent loop answers one."""
    name, arguments = tool_call["tool"], tool_call["arguments"]
    await recorder.direct_call(name, arguments)
    await recorder.entering(f"tool call {name}")
    by_name = {tool["name"]: tool for tool in tools}
    call = ToolCall(id="direct", name=name, arguments=arguments, raw_arguments="")
    recorder.calling(name, arguments)
    await recorder.tool_called(await call_tool(call, by_name.get(name), conn))
    return Run.StopReason.COMPLETED
