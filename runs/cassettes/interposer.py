"""One run's place between the agent and its model and MCP server (runs/pipeline.py composes it once).

Every run records (the outermost wrappers, so a cassette holds what the agent sent and was answered). A replay or a
fork answers from its parent's cassette underneath; a fork and a replay with `"mcp": "live"` go to the live server
too, and a fork to the live model from its step on. Django-free.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from evalhub.mcp_client.connection import Connection
from evalhub.model_client.client import ProviderClient
from runs.cassettes.fork import Boundary, Change
from runs.cassettes.model_side import CassetteClient, RecordingClient
from runs.cassettes.server_side import CassetteConnection, RecordingConnection
from runs.cassettes.tape import MODEL, Tape

CASSETTE, LIVE, FORK = "cassette", "live", "fork"
MODES = (CASSETTE, LIVE, FORK)
# The setting that keeps, on a replay, the duration of the run it replays (runs.cassettes.services).
REPLAYED_DURATION = "replayed_duration_ms"


@dataclass
class Interposer:
    tape: Tape
    source: Tape | None = None
    mode: str = ""  # "" a live run, else one of MODES
    boundary: Boundary | None = None  # a fork's
    change: Change | None = None

    @property
    def offline(self) -> bool:
        """No MCP server at all: every answer comes from the cassette."""
        return self.mode == CASSETTE

    def connection(self, live: Connection | None) -> Connection:
        """The connection the run's strategies get: `live` (None when offline) with the cassette in between."""
        inner: Any = live
        if self.source is not None:
            inner = CassetteConnection(
                self.source,
                normal=self.tape.normal,
                live=live,
                live_from=self.boundary.mcp_from if self.boundary else None,
                replace=self.boundary.replace if self.boundary else None,
                replacement=self.change.result if self.change and self.change.kind == "tool_result" else None,
            )
        return cast(Connection, RecordingConnection(inner, self.tape))

    def client(self, live: Callable[[], ProviderClient], channel: str = MODEL) -> ProviderClient:
        """The model client: `live()` is only called when a live model is needed, so a replay needs no key."""
        inner: Any
        if self.source is None:
            inner = live()
        else:
            inner = CassetteClient(
                self.source,
                normal=self.tape.normal,
                channel=channel,
                live=live if self.boundary else None,
                live_from=self.boundary.model_from if self.boundary and channel == MODEL else None,
                change=self.change,
            )
        return cast(ProviderClient, RecordingClient(inner, self.tape, channel))
