"""Where the agent loop meets code mode: which tools the model is offered, who answers its calls, and how many
tool calls each counts for against the run's `max_tool_calls`.

The budget counts the server's real tool calls: in code mode those a `run_code` program makes (up to 20 per
execution), not the `run_code` call itself, so code mode cannot make 20 times the calls direct mode may. A program
is given only what is left of the budget; a `run_code` whose program calls nothing counts for nothing (`max_turns`
still bounds the model's turns).
"""

from __future__ import annotations

from typing import Any

from evalhub.mcp_client.connection import Connection
from evalhub.model_client.results import ToolCall
from runs.code_mode import CODE
from runs.code_mode.execute import MAX_TOOL_CALLS_PER_EXECUTION, CallTool, execute_run_code
from runs.code_mode.typed_api import RUN_CODE, run_code_tool


def offered_tools(mode: str, tools: list[dict[str, Any]], *, max_tool_calls: int) -> list[dict[str, Any]]:
    """The tools the model sees: the server's own, or in code mode only `run_code`."""
    if mode != CODE:
        return tools
    return [run_code_tool(tools, max_calls=min(MAX_TOOL_CALLS_PER_EXECUTION, max_tool_calls))]


async def perform(
    mode: str,
    call: ToolCall,
    *,
    tools: dict[str, dict[str, Any]],
    conn: Connection,
    call_tool: CallTool,
    calls_left: int,
) -> dict[str, Any]:
    """Answer one tool call of the model. In code mode only `run_code` exists: any other name is unknown."""
    if mode != CODE:
        return await call_tool(call, tools.get(call.name), conn)
    if call.name == RUN_CODE and call.arguments is not None:
        max_calls = min(MAX_TOOL_CALLS_PER_EXECUTION, calls_left)
        return await execute_run_code(call, tools=tools, conn=conn, call_tool=call_tool, max_calls=max_calls)
    return await call_tool(call, None, conn)


def calls_counted(mode: str, record: dict[str, Any]) -> int:
    """How many of the run's `max_tool_calls` the answered call `record` used (see the module docstring)."""
    if mode == CODE and record["toolName"] == RUN_CODE:
        return len(record["nestedCalls"])
    return 1
