"""Where the agent loop meets code mode: which tools the model is offered, and who answers its calls."""

from __future__ import annotations

from typing import Any

from evalhub.mcp_client.connection import Connection
from evalhub.model_client.results import ToolCall
from runs.code_mode import CODE
from runs.code_mode.execute import MAX_TOOL_CALLS_PER_EXECUTION, CallTool, execute_run_code
from runs.code_mode.typed_api import RUN_CODE, run_code_tool


def offered_tools(mode: str, tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The tools the model sees: the server's own, or in code mode only `run_code`."""
    return [run_code_tool(tools, max_calls=MAX_TOOL_CALLS_PER_EXECUTION)] if mode == CODE else tools


async def perform(
    mode: str, call: ToolCall, *, tools: dict[str, dict[str, Any]], conn: Connection, call_tool: CallTool
) -> dict[str, Any]:
    """Answer one tool call of the model. In code mode only `run_code` exists: any other name is unknown."""
    if mode != CODE:
        return await call_tool(call, tools.get(call.name), conn)
    if call.name == RUN_CODE and call.arguments is not None:
        return await execute_run_code(call, tools=tools, conn=conn, call_tool=call_tool)
    return await call_tool(call, None, conn)
