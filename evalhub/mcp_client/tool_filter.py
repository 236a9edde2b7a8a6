"""Keeping a server usable when some of its tools are malformed.

The SDK validates a tools/list page as a whole: a single tool whose `inputSchema` is not an object made the page
fail as "not valid MCP", and the server could be neither inspected nor run. This filter sits between the
transport and the session. It notes the ids of outgoing tools/list requests and, when the answer to one does not
validate, takes out each tool that fails on its own and records it with the reason; the session then reads a
valid page of the valid tools. A page that is broken for another reason (its cursor, its shape) passes through
unchanged and fails as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mcp_types
from mcp.shared.message import SessionMessage
from mcp_types import methods
from pydantic import ValidationError

from evalhub.mcp_client.classify import describe_validation
from evalhub.mcp_client.redact import Redactor

LIST_TOOLS = "tools/list"


@dataclass(frozen=True)
class InvalidTool:
    """A tool the server listed that is not valid MCP; models are never offered it."""

    name: str | None  # None when the tool has no usable name
    position: int  # 1-based, within its page
    reason: str  # e.g. "inputSchema: Input should be a valid dictionary"

    @property
    def label(self) -> str:
        return self.name if self.name is not None else f"#{self.position}"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "position": self.position, "reason": self.reason}


class ToolListFilter:
    """`wrap(streams)` the transport's streams; `invalid` lists the tools taken out since the last `reset()`.

    `version` is the negotiated protocol version (set once the handshake is done): tools are checked against
    that version's schema, as the session checks the page.
    """

    def __init__(self, redact: Redactor) -> None:
        self.version: str | None = None
        self.invalid: list[InvalidTool] = []
        self._redact = redact
        self._pending: set[Any] = set()

    def reset(self) -> None:
        self.invalid = []

    def sent(self, item: SessionMessage) -> None:
        message = item.message
        if isinstance(message, mcp_types.JSONRPCRequest) and message.method == LIST_TOOLS:
            self._pending.add(message.id)

    def received(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        if not isinstance(item, SessionMessage):
            return item
        message = item.message
        if (
            not isinstance(message, mcp_types.JSONRPCResponse | mcp_types.JSONRPCError)
            or message.id not in self._pending
        ):
            return item
        self._pending.discard(message.id)
        if isinstance(message, mcp_types.JSONRPCError):
            return item
        page = self._filtered(message.result)
        if page is message.result:
            return item
        return SessionMessage(message.model_copy(update={"result": page}), metadata=item.metadata)

    def _filtered(self, page: dict[str, Any]) -> dict[str, Any]:
        tools = page.get("tools")
        if self._problem(page) is None or not isinstance(tools, list) or self._problem({**page, "tools": []}):
            return page
        kept: list[Any] = []
        for position, tool in enumerate(tools, start=1):
            problem = self._problem({**page, "tools": [tool]})
            if problem is None:
                kept.append(tool)
                continue
            raw_name = tool.get("name") if isinstance(tool, dict) else None
            name = self._redact(raw_name) if isinstance(raw_name, str) and raw_name else None
            self.invalid.append(InvalidTool(name, position, self._redact(problem)))
        return {**page, "tools": kept}

    def _problem(self, page: dict[str, Any]) -> str | None:
        """Why the session would refuse this page, or None. Locations inside the one tool drop "tools.0."."""
        try:
            if self.version is not None:
                _check_surface(page, self.version)
            mcp_types.ListToolsResult.model_validate(page, by_name=False)
        except ValidationError as exc:
            return describe_validation(exc, within=("tools", "0"))
        return None


def _check_surface(page: dict[str, Any], version: str) -> None:
    """The negotiated version's own schema, which the session checks first (stricter: `type` must be "object")."""
    try:
        methods.validate_server_result(LIST_TOOLS, version, page)
    except ValidationError:
        raise
    except (KeyError, ValueError):
        pass  # a version this SDK has no schema for: the session does not check one either
