# ruff: noqa: E402 — one mode writes to stdout before the imports (see GARBAGE).
"""A hostile MCP server (low-level SDK server) for the fault corpus: `--mode` picks its misbehaviour.

    python tests/faults/hostile_server.py --mode MODE [--pidfile PATH] [--http --port N]

Every mode offers the tool `act` (except where a mode replaces the tool list) and misbehaves when it is
called, unless the mode is about the handshake. Modes (see MODES):
  hang-initialize     answers neither `server/discover` nor `initialize`
  garbage-only        writes human text to stdout as it starts, then never answers the handshake
  garbage-stdout      prints a banner and a stray line per call to stdout, and otherwise works
  hang-in-call        never answers the tool call
  exit-mid-call       writes its last words to stderr and dies with os._exit(9) during the call
  exit-leaving-child  the same, but its --pidfile helper inherited its stdin/stdout/stderr and lives on
  notification-flood  sends NOTIFICATIONS log notifications about the call before answering it
  sampling            asks the client for a model completion (sampling/createMessage) during the call
  elicitation         asks the client's user for input (elicitation/create) during the call
  many-tools          lists MANY_TOOLS tools (`tool_000` … `tool_499`)
  odd-names           lists tools named with unicode, dots, slashes and ODD_LONG_NAME (300 characters)
  tool-error          answers every call with a tool error (isError): the server's failure, not the agent's
  healthy             behaves (the baseline)

--pidfile PATH: before serving, spawn a helper process (like servers that start a language server or a
browser) and write "<own pid> <helper pid>" to PATH, so a test can prove that neither outlives the run.
--http --port N: serve Streamable HTTP at http://127.0.0.1:N/mcp instead of stdio; the same modes apply
(exit-mid-call then drops the connection).

The 2026 protocol has no back-channel for server-initiated requests on stdio, so in `sampling` and
`elicitation` modes the server speaks only the 2025 handshake era (`serve_loop`), as servers of that era do:
clients fall back to `initialize`, after which the server may send requests to the client.
"""

from __future__ import annotations

import os
import sys

GARBAGE = b"Welcome to FancyServer 2.0! Type HELP for a list of commands.\n"
# Before the SDK's imports, which take a second or more on a loaded machine: this case's garbage must reach
# the client well within the tight connect timeout the corpus gives it.
if __name__ == "__main__" and "garbage-only" in sys.argv:
    os.write(1, GARBAGE)

import argparse
import subprocess
import warnings
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPDeprecationWarning

MODES = (
    "hang-initialize",
    "garbage-only",
    "garbage-stdout",
    "hang-in-call",
    "exit-mid-call",
    "exit-leaving-child",
    "notification-flood",
    "sampling",
    "elicitation",
    "many-tools",
    "odd-names",
    "healthy",
    "tool-error",
)
NOTIFICATIONS = 2000
MANY_TOOLS = 500
ODD_LONG_NAME = "very_" * 59 + "long!"
ODD_NAMES = ("météo_☀️", "files/read", "ns.tool.v2", "with space", ODD_LONG_NAME)
HANDSHAKE = ("initialize", "server/discover")
LEGACY_ONLY = ("sampling", "elicitation")

# Sampling and the logging capability are deprecated in the 2026 protocol; the warning would only fill stderr.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)


def tool(name: str) -> types.Tool:
    return types.Tool(
        name=name,
        description=f"Does {name} (a tool of the hostile fixture server).",
        input_schema={"type": "object", "properties": {}},
    )


def say(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)])


class Hostile:
    def __init__(self, mode: str) -> None:
        self.mode = mode
        # The pipe the JSON-RPC messages use. The SDK moves it off fd 1 while it serves (fd 1 then points at
        # stderr), so a handle taken now is how garbage still reaches the client, as a careless print() does.
        self.wire = os.dup(1)
        self.server = Server("hostile", version="0.0.1", on_list_tools=self.list_tools, on_call_tool=self.call_tool)
        self.server.middleware.append(self.misbehave_in_handshake)

    def garbage(self, text: str) -> None:
        os.write(self.wire, text.encode() + b"\n")

    def tools(self) -> list[types.Tool]:
        if self.mode == "many-tools":
            return [tool(f"tool_{index:03d}") for index in range(MANY_TOOLS)]
        if self.mode == "odd-names":
            return [tool(name) for name in ODD_NAMES]
        return [tool("act")]

    async def list_tools(self, ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=self.tools())

    async def call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        mode = self.mode
        if mode == "hang-in-call":
            await anyio.sleep_forever()
        if mode in ("exit-mid-call", "exit-leaving-child"):
            sys.stderr.write("hostile: dying in the middle of the call\n")
            sys.stderr.flush()
            os._exit(9)
        if mode == "garbage-stdout":
            self.garbage(f"DEBUG: {params.name} called")
        if mode == "notification-flood":
            for index in range(NOTIFICATIONS):
                notice = types.LoggingMessageNotificationParams(level="info", data=f"working… {index}")
                await ctx.session.send_notification(
                    types.LoggingMessageNotification(params=notice), related_request_id=ctx.request_id
                )
        if mode == "sampling":
            question = types.SamplingMessage(role="user", content=types.TextContent(type="text", text="Say yes."))
            await ctx.session.create_message([question], max_tokens=10, related_request_id=ctx.request_id)
        if mode == "elicitation":
            schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
            await ctx.session.elicit_form("What is your name?", schema, related_request_id=ctx.request_id)
        if mode == "tool-error":
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=f"{params.name}: the backend failed")], is_error=True
            )
        return say(f"{params.name}: done")

    async def misbehave_in_handshake(self, ctx: Any, call_next: Any) -> Any:
        if ctx.method in HANDSHAKE and self.mode in ("hang-initialize", "garbage-only"):
            await anyio.sleep_forever()
        return await call_next(ctx)

    async def serve_stdio(self) -> None:
        if self.mode == "garbage-stdout":
            self.garbage("HostileServer 0.0.1 ready (this banner should have gone to stderr)")
        server = self.server
        async with stdio_server() as (read_stream, write_stream):
            if self.mode not in LEGACY_ONLY:
                await server.run(read_stream, write_stream, server.create_initialization_options())
                return
            async with server.lifespan(server) as state:
                init = server.create_initialization_options()
                await serve_loop(server, read_stream, write_stream, lifespan_state=state, init_options=init)

    def serve_http(self, port: int) -> None:
        import uvicorn

        app = self.server.streamable_http_app(streamable_http_path="/mcp")
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def spawn_helper(pidfile: str, *, holding_stdio: bool) -> None:
    # A well-behaved helper gets its own stdio; one that inherits the server's keeps the pipes to the client open
    # after the server itself has died.
    stdio = None if holding_stdio else subprocess.DEVNULL
    helper = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"], stdin=stdio, stdout=stdio, stderr=stdio
    )
    with open(pidfile, "w") as file:
        file.write(f"{os.getpid()} {helper.pid}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=MODES, required=True)
    parser.add_argument("--pidfile")
    parser.add_argument("--http", action="store_true")
    parser.add_argument("--port", type=int, default=8766)
    options = parser.parse_args()
    hostile = Hostile(options.mode)
    if options.pidfile:
        spawn_helper(options.pidfile, holding_stdio=options.mode == "exit-leaving-child")
    if options.http:
        hostile.serve_http(options.port)
    else:
        anyio.run(hostile.serve_stdio)


if __name__ == "__main__":
    main()
