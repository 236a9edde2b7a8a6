"""A blocking facade over one connection, for synchronous callers such as a Celery task's agent loop.

    with connect_sync(config) as conn:
        conn.call_tool("search_flights", {...})

The connection lives on an event loop in a helper thread (an anyio blocking portal); each method blocks the
calling thread until the coroutine finishes there. Exceptions (McpConnectionError) pass through unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal

from evalhub.mcp_client.config import ServerConfig
from evalhub.mcp_client.connection import Connection, ServerInfo, connect
from evalhub.mcp_client.convert import PromptDict, ResourceDict, ResourceTemplateDict, ToolDict, ToolResultDict
from evalhub.mcp_client.raw import RawAnswer
from evalhub.mcp_client.tool_filter import InvalidTool


class SyncConnection:
    def __init__(self, conn: Connection, portal: BlockingPortal) -> None:
        self._conn = conn
        self._portal = portal

    @property
    def info(self) -> ServerInfo:
        return self._conn.info

    @property
    def stderr_tail(self) -> str:
        return self._conn.stderr_tail

    @property
    def warnings(self) -> list[str]:
        return self._conn.warnings

    @property
    def invalid_tools(self) -> list[InvalidTool]:
        return self._conn.invalid_tools

    @property
    def notifications(self) -> list[str]:
        return self._conn.notifications

    def raw_request(self, method: str, params: dict[str, Any] | None, *, timeout: float) -> RawAnswer:
        answer: RawAnswer = self._portal.call(
            functools.partial(self._conn.raw_request, method, params, timeout=timeout)
        )
        return answer

    def supports(self, capability: str) -> bool:
        return self._conn.supports(capability)

    def list_tools(self) -> list[ToolDict]:
        return self._portal.call(self._conn.list_tools)

    def list_resources(self) -> list[ResourceDict]:
        return self._portal.call(self._conn.list_resources)

    def list_resource_templates(self) -> list[ResourceTemplateDict]:
        return self._portal.call(self._conn.list_resource_templates)

    def list_prompts(self) -> list[PromptDict]:
        return self._portal.call(self._conn.list_prompts)

    def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> ToolResultDict:
        # anyio types BlockingPortal.call's result as Any once arguments are bound; name the type here.
        result: ToolResultDict = self._portal.call(
            functools.partial(self._conn.call_tool, name, arguments, timeout=timeout)
        )
        return result


@contextmanager
def connect_sync(config: ServerConfig) -> Iterator[SyncConnection]:
    """`connect()` for synchronous code; same guarantees (timeouts, process-group cleanup, one error type)."""
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(connect(config)) as conn:
        yield SyncConnection(conn, portal)
