"""How a run gets its MCP server, and how long it waited for it.

A fresh connection is the default: for stdio, a new server process per run, so no run sees what an earlier one left
behind. A stdio server its owner marked stateless (`McpServer.warm_reuse`) is instead lent from the worker process's
warm pool (evalhub/mcp_client/warm_pool.py), which skips the process start and the handshake.

Either way the run records the wait as `Run.server_start`: `{"ms", "transport", "warm"}` and, for a lent process,
`"use"` (this run is its use-th) and `"recycleAfter"`. The run page shows it as its own part of the time split.
Warm reuse changes no verdict rule: a run is judged on what it recorded, as any other.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from evalhub.mcp_client.config import ServerConfig
from evalhub.mcp_client.connection import Connection, connect
from evalhub.mcp_client.warm_pool import WARM_POOL, Lease
from evalhub.servers.models import McpServer


@dataclass
class ServerConnection:
    conn: Connection
    start: dict[str, Any]
    lease: Lease | None = field(default=None, repr=False)

    def discard(self) -> None:
        """The run was cancelled: its server is not lent to another run."""
        if self.lease is not None:
            self.lease.discard()


def pool_key(server: McpServer, config: ServerConfig) -> str:
    """Processes are shared only by runs of the same server with the same settings: an edit starts new ones.
    The settings (secrets included) are only hashed, and only in memory."""
    digest = hashlib.sha256(repr(config).encode()).hexdigest()[:16]
    return f"{server.pk}:{digest}"


@asynccontextmanager
async def server_connection(server: McpServer, config: ServerConfig) -> AsyncIterator[ServerConnection]:
    """The run's connection to `server`; raises McpConnectionError as `connect` does."""
    transport = config.transport
    if transport == "stdio" and server.warm_reuse:
        key = pool_key(server, config)
        async with WARM_POOL.lease(config, key=key, recycle_after=server.warm_recycle_after) as lease:
            start = {"transport": transport, **lease.describe()}
            yield ServerConnection(lease.conn, start, lease)
        return
    started = time.perf_counter()
    async with connect(config) as conn:
        start = {"ms": round((time.perf_counter() - started) * 1000), "transport": transport, "warm": False}
        yield ServerConnection(conn, start)
