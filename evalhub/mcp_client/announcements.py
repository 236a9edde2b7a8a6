"""What a server announces that the SDK's typed session drops: capabilities it has no field for, and notifications
it does not know.

The `evals` capability of the evals/list proposal (`{"evals": {"listChanged": true}}`) is one: the SDK parses the
initialize result into a model that ignores unknown capabilities, and passes unknown notifications such as
`notifications/evals/list_changed` to no one. This watcher reads them off the wire (see stream_watch) and changes
nothing.
"""

from __future__ import annotations

from typing import Any

import mcp_types
from mcp.shared.message import SessionMessage

# Where a server announces its capabilities: the handshake, or the 2026 protocol's discovery.
HANDSHAKES = ("initialize", "server/discover")


class Announcements:
    """`capabilities`: the initialize result's capabilities as sent; `notifications`: methods the server sent."""

    def __init__(self) -> None:
        self.capabilities: dict[str, Any] | None = None
        self.notifications: set[str] = set()
        self._handshake_ids: set[Any] = set()

    def sent(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, mcp_types.JSONRPCRequest) and message.method in HANDSHAKES:
            self._handshake_ids.add(message.id)

    def received(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        if not isinstance(item, SessionMessage):
            return item
        message = item.message
        if isinstance(message, mcp_types.JSONRPCNotification):
            self.notifications.add(message.method)
        elif isinstance(message, mcp_types.JSONRPCResponse) and message.id in self._handshake_ids:
            capabilities = message.result.get("capabilities")
            if isinstance(capabilities, dict):
                self.capabilities = capabilities
        return item
