"""A one-shot look at a server: who it is and everything it offers. Sync entry point for Django views."""

from __future__ import annotations

import asyncio
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

import anyio

from evalhub.mcp_client import server_evals
from evalhub.mcp_client.config import ServerConfig
from evalhub.mcp_client.connection import Connection, connect
from evalhub.mcp_client.convert import PromptDict, ResourceDict, ResourceTemplateDict, ToolDict
from evalhub.mcp_client.errors import ErrorKind, McpConnectionError
from evalhub.mcp_client.snapshot import tools_hash


@dataclass
class Inspection:
    """Everything a server announced, JSON-serialisable via `to_dict()`. Secrets are already redacted."""

    transport: str
    server_name: str
    server_version: str
    server_title: str | None
    protocol_version: str
    capabilities: dict[str, Any]
    instructions: str | None
    tools: list[ToolDict]
    # Tools the server listed that are not valid MCP ({"name", "position", "reason"}): left out of `tools`.
    invalid_tools: list[dict[str, Any]]
    resources: list[ResourceDict]
    resource_templates: list[ResourceTemplateDict]
    prompts: list[PromptDict]
    # Evals the server ships (only when it announced the `evals` capability), those that break the proposal's
    # schema with the reason, and why listing them failed (the rest of the inspection still counts).
    evals: list[dict[str, Any]]
    invalid_evals: list[server_evals.InvalidEval]
    evals_error: str | None
    tools_hash: str
    warnings: list[str]
    stderr_tail: str
    duration_ms: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


async def inspect_server_async(config: ServerConfig) -> Inspection:
    """Connect, list tools, resources, resource templates, prompts and shipped evals, disconnect.

    The whole inspection shares one budget, `config.connect_timeout`: a server that hangs after the handshake
    cannot hold a page load for four request timeouts. Stopping a stdio server adds at most ~2 s on top.
    Lists the server did not announce a capability for are empty, not requested.
    """
    started = time.monotonic()
    deadline = anyio.current_time() + config.connect_timeout
    async with connect(config) as conn:
        step = "tools/list"
        with anyio.CancelScope(deadline=deadline) as scope:
            tools = await conn.list_tools() if conn.supports("tools") else []
            step = "resources/list"
            resources = await conn.list_resources() if conn.supports("resources") else []
            step = "resources/templates/list"
            templates = await conn.list_resource_templates() if conn.supports("resources") else []
            step = "prompts/list"
            prompts = await conn.list_prompts() if conn.supports("prompts") else []
            step = server_evals.LIST_EVALS
            evals, evals_error = await _shipped_evals(conn)
        if scope.cancelled_caught:
            raise McpConnectionError(
                ErrorKind.REQUEST_TIMEOUT,
                f"The server completed the handshake but did not answer {step} within the inspection budget "
                f"(the connect timeout, {config.connect_timeout:g} s).",
                stderr_tail=conn.stderr_tail,
            )
        info = conn.info
        return Inspection(
            transport=config.transport,
            server_name=info.name,
            server_version=info.version,
            server_title=info.title,
            protocol_version=info.protocol_version,
            capabilities=info.capabilities,
            instructions=info.instructions,
            tools=tools,
            invalid_tools=[invalid.to_dict() for invalid in conn.invalid_tools],
            resources=resources,
            resource_templates=templates,
            prompts=prompts,
            evals=evals["evals"],
            invalid_evals=evals["invalid"],
            evals_error=evals_error,
            tools_hash=tools_hash(tools),
            warnings=conn.warnings,
            stderr_tail=conn.stderr_tail,
            duration_ms=round((time.monotonic() - started) * 1000),
        )


async def _shipped_evals(conn: Connection) -> tuple[server_evals.Listing, str | None]:
    """The server's evals, or none and the reason: a server whose evals/list is broken can still be inspected
    and run; only its shipped evals are unavailable."""
    if not conn.supports(server_evals.CAPABILITY):
        return {"evals": [], "invalid": []}, None
    try:
        return await conn.list_evals(), None
    except McpConnectionError as exc:
        return {"evals": [], "invalid": []}, exc.message


def inspect_server(config: ServerConfig) -> Inspection:
    """Blocking `inspect_server_async`, for Django views and Celery tasks. Raises McpConnectionError."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(inspect_server_async, config)
    # Called from inside a running event loop (an async view): use a private loop on a worker thread.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="mcp-inspect") as pool:
        return pool.submit(anyio.run, inspect_server_async, config).result()
