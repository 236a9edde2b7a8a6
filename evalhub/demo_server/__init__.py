"""The Demo travel server: a deterministic, offline MCP server bundled with EvalHub.

Run it with `python -m evalhub.demo_server` (stdio) or `python -m evalhub.demo_server --http --port 8765`
(Streamable HTTP at http://127.0.0.1:8765/mcp). `build_server()` returns the MCPServer for in-process use.
"""

from evalhub.demo_server.server import build_server

__all__ = ["build_server"]
