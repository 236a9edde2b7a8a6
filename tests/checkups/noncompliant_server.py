"""A deliberately non-compliant MCP server (low-level SDK server) for the check-up's tests.

    python tests/checkups/noncompliant_server.py [--http --port N]

What is wrong with it, each giving one expected finding (tests/checkups/test_noncompliant.py):
- tools/list pages hand out cursors "a" → "b" → "a": a pagination loop;
- an unknown method is answered -32603 (internal error), not -32601; a tools/call without a name -32600, not -32602;
- it declares the `resources` capability (it has a handler) but resources/list fails (-32603);
- `echo` returns structuredContent without an outputSchema, and a text content that says something else; a call
  missing its required `text` crashes into -32603; calling it sends notifications/tools/list_changed, undeclared;
- `stall` never answers;
- `add` behaves (the baseline: no finding).
"""

from __future__ import annotations

import argparse
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

TOOLS = [
    types.Tool(
        name="echo",
        description="Echoes the text it is given back to the caller, unchanged.",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string", "description": "What to echo."}},
            "required": ["text"],
        },
    ),
    types.Tool(
        name="stall",
        description="Waits for the backend and answers when it is ready.",
        input_schema={"type": "object", "properties": {}},
    ),
    types.Tool(
        name="add",
        description="Adds two integers and returns their sum as text.",
        input_schema={
            "type": "object",
            "properties": {
                "a": {"type": "integer", "description": "The first number."},
                "b": {"type": "integer", "description": "The second number."},
            },
            "required": ["a", "b"],
        },
    ),
]
KNOWN = {"initialize", "server/discover", "tools/list", "tools/call", "resources/list", "ping"}


async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    # Page "a" then "b" then "a" again: a client that follows the cursors never gets to the end.
    cursor = params.cursor if params else None
    if cursor is None:
        return types.ListToolsResult(tools=TOOLS[:2], next_cursor="a")
    if cursor == "a":
        return types.ListToolsResult(tools=TOOLS[2:], next_cursor="b")
    return types.ListToolsResult(tools=[], next_cursor="a")


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    arguments = params.arguments or {}
    if params.name == "stall":
        await anyio.sleep_forever()
    if params.name == "echo":
        await ctx.session.send_notification(types.ToolListChangedNotification(), related_request_id=ctx.request_id)
        text = arguments["text"]  # a missing field crashes: the SDK answers -32603
        return types.CallToolResult(
            content=[types.TextContent(type="text", text="done")], structured_content={"echoed": text}
        )
    if params.name == "add":
        a, b = arguments.get("a"), arguments.get("b")
        if not isinstance(a, int) or not isinstance(b, int):
            return types.CallToolResult(
                content=[types.TextContent(type="text", text="a and b must be integers")], is_error=True
            )
        return types.CallToolResult(content=[types.TextContent(type="text", text=str(a + b))])
    return types.CallToolResult(content=[types.TextContent(type="text", text="no such tool")], is_error=True)


async def list_resources(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListResourcesResult:
    # Its handler makes the server declare `resources`; it answers none.
    raise MCPError(code=types.INTERNAL_ERROR, message="Resources are not implemented")


async def wrong_codes(ctx: Any, call_next: Any) -> Any:
    if ctx.method not in KNOWN and not ctx.method.startswith("notifications/"):
        raise MCPError(code=types.INTERNAL_ERROR, message="Something went wrong")
    if ctx.method == "tools/call" and not (ctx.params or {}).get("name"):
        raise MCPError(code=types.INVALID_REQUEST, message="Bad request")
    return await call_next(ctx)


def build() -> Server:
    server = Server(
        "noncompliant",
        version="0.0.1",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
    )
    server.middleware.append(wrong_codes)
    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--port", type=int, default=8767)
    options = parser.parse_args()
    server = build()
    if options.http:
        import uvicorn

        uvicorn.run(server.streamable_http_app(streamable_http_path="/mcp"), host="127.0.0.1", port=options.port)
        return
    from mcp.server.stdio import stdio_server

    async def serve() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(serve)


if __name__ == "__main__":
    main()
