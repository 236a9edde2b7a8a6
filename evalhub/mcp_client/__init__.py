"""EvalHub's MCP connection layer: pure Python over the MCP SDK, no Django.

Views call `inspect_server(config)` (blocking); the run worker opens `async with connect(config) as conn:`
(or `with connect_sync(config) as conn:` from synchronous code) and calls `conn.call_tool(...)` as often
as the agent loop needs. Everything raises
`McpConnectionError` (with a `kind`, a one-sentence `message` and, for stdio, a `stderr_tail`) and never
lets a configured secret through.
"""

from evalhub.mcp_client.config import ServerConfig
from evalhub.mcp_client.connection import Connection, ServerInfo, connect
from evalhub.mcp_client.convert import (
    PromptDict,
    ResourceDict,
    ResourceTemplateDict,
    ToolDict,
    ToolResultDict,
)
from evalhub.mcp_client.environment import ENV_ALLOWLIST
from evalhub.mcp_client.errors import ErrorKind, McpConnectionError
from evalhub.mcp_client.inspection import Inspection, inspect_server, inspect_server_async
from evalhub.mcp_client.quality import Finding, QualityReport, quality_report
from evalhub.mcp_client.snapshot import ToolsDiff, diff_tools, tools_hash
from evalhub.mcp_client.sync import SyncConnection, connect_sync

__all__ = [
    "ENV_ALLOWLIST",
    "Connection",
    "ErrorKind",
    "Finding",
    "Inspection",
    "McpConnectionError",
    "PromptDict",
    "QualityReport",
    "ResourceDict",
    "ResourceTemplateDict",
    "ServerConfig",
    "ServerInfo",
    "SyncConnection",
    "ToolDict",
    "ToolResultDict",
    "ToolsDiff",
    "connect",
    "connect_sync",
    "diff_tools",
    "inspect_server",
    "inspect_server_async",
    "quality_report",
    "tools_hash",
]
