"""A cassette as data: what a run sent its model and its MCP server, and what came back, in order. Pure (no Django).

Two channels, each a list of exchanges in the order they happened:
- `model`: `{"request": {"model", "messages", "tools", …}, "response": {…} | "error": {…}, "ms"}`;
- `mcp`: `{"request": {"method", "params"}, "response": {…} | "error": {"kind", "message"}, "ms"}`.

Every value is stored as the run's record stores it: configured secrets masked, values PostgreSQL refuses kept as
text, and capped (runs/record_limits.py). A request is always compared in that same form (`Tape.normal`), so a
recorded request and a replayed one match exactly when the agent sent the same thing, secrets and caps included.

A model request repeats the whole conversation each turn; stored whole, a cassette would grow with the square of the
run's length. So a stored request keeps only what changed since the channel's previous request: the messages after
their common head (`messagesKept` says how many were the same) and the fields that differ (`same` names the others).
`Tape.to_json` / `Tape.from_json` write and read that form; in memory every request is whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalhub.mcp_client.connection import redact_json
from evalhub.mcp_client.redact import Redactor
from evalhub.storable import storable
from runs.record_limits import RUN_BYTES, TOOL_RESULT_BYTES, cap_json, compact_json

MODEL, SIMULATOR, MCP = "model", "simulator", "mcp"
CHANNELS = (MODEL, SIMULATOR, MCP)
VERSION = 1
# One exchange's request or answer; a model's whole conversation is one request, hence the larger room.
REQUEST_BYTES = 4 * TOOL_RESULT_BYTES
RESPONSE_BYTES = TOOL_RESULT_BYTES


@dataclass(frozen=True)
class Exchange:
    request: dict[str, Any]
    response: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    ms: int = 0
    # The answer was too big to keep whole: it can be shown, not replayed.
    cut: bool = False
    turn: int = 0


class Tape:
    """A cassette being recorded, or read back for a replay."""

    def __init__(self, redact: Redactor | None = None, *, limit: int = RUN_BYTES) -> None:
        self.redact = redact or Redactor([])
        self.limit = limit
        self.exchanges: dict[str, list[Exchange]] = {channel: [] for channel in CHANNELS}
        self._stored: dict[str, list[dict[str, Any]]] = {channel: [] for channel in CHANNELS}
        self.size = 0
        # Exchanges came after the cassette was full: a replay can go only as far as what was kept.
        self.truncated = False

    def normal(self, value: Any, limit: int = REQUEST_BYTES) -> tuple[Any, bool]:
        """`value` as a cassette stores it (secrets masked, storable, capped), and whether the cap cut it."""
        capped = cap_json(storable(redact_json(value, self.redact))[0], limit)
        return capped.value, capped.cut is not None

    def add(
        self,
        channel: str,
        request: dict[str, Any],
        *,
        response: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        ms: float = 0,
    ) -> None:
        """Record one exchange; past the cassette's limit it is dropped and the cassette marked truncated."""
        if self.truncated:
            return
        request, _ = self.normal(request)
        answer, cut = self.normal(response if error is None else error, RESPONSE_BYTES)
        exchange = Exchange(
            request=request,
            response=answer if error is None else None,
            error=answer if error is not None else None,
            ms=round(ms),
            cut=cut,
            turn=len(self.exchanges[MODEL]) if channel == MCP else 0,
        )
        previous = self.exchanges[channel][-1].request if self.exchanges[channel] else None
        stored = stored_exchange(exchange, previous)
        size = len(compact_json(stored))
        if self.size + size > self.limit:
            self.truncated = True
            return
        self.size += size
        self.exchanges[channel].append(exchange)
        self._stored[channel].append(stored)

    def at(self, channel: str, index: int) -> Exchange | None:
        found = self.exchanges[channel]
        return found[index] if index < len(found) else None

    def to_json(self) -> dict[str, Any]:
        return {
            "version": VERSION,
            **{channel: self._stored[channel] for channel in CHANNELS},
            "truncated": self.truncated,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tape:
        tape = cls()
        tape.truncated = bool(data.get("truncated"))
        for channel in CHANNELS:
            previous: dict[str, Any] | None = None
            for stored in data.get(channel) or []:
                request = expand(stored["request"], previous)
                previous = request
                tape.exchanges[channel].append(
                    Exchange(
                        request=request,
                        response=stored.get("response"),
                        error=stored.get("error"),
                        ms=int(stored.get("ms") or 0),
                        cut=bool(stored.get("cut")),
                        turn=int(stored.get("turn") or 0),
                    )
                )
                tape._stored[channel].append(stored)
                tape.size += len(compact_json(stored))
        return tape


def stored_exchange(exchange: Exchange, previous: dict[str, Any] | None) -> dict[str, Any]:
    stored: dict[str, Any] = {"request": compress(exchange.request, previous), "ms": exchange.ms}
    if exchange.error is not None:
        stored["error"] = exchange.error
    else:
        stored["response"] = exchange.response
    if exchange.cut:
        stored["cut"] = True
    if exchange.turn:
        stored["turn"] = exchange.turn
    return stored


def compress(request: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
    """`request` less what it shares with `previous` (see the module docstring); `expand` undoes it."""
    if previous is None:
        return request
    stored: dict[str, Any] = {}
    same = []
    for key, value in request.items():
        before = previous.get(key)
        if key == "messages" and isinstance(value, list) and isinstance(before, list):
            kept = _common_head(value, before)
            stored["messages"], stored["messagesKept"] = value[kept:], kept
        elif key in previous and before == value:
            same.append(key)
        else:
            stored[key] = value
    if same:
        stored["same"] = same
    return stored


def expand(stored: dict[str, Any], previous: dict[str, Any] | None) -> dict[str, Any]:
    if previous is None:
        return stored
    request = {key: value for key, value in stored.items() if key not in ("same", "messagesKept")}
    for key in stored.get("same", []):
        request[key] = previous[key]
    if "messagesKept" in stored:
        request["messages"] = previous["messages"][: stored["messagesKept"]] + stored["messages"]
    # Keys in the order they were recorded, as the diff walks them.
    order = [key for key in previous if key in request] + [key for key in request if key not in previous]
    return {key: request[key] for key in order}


def _common_head(items: list[Any], before: list[Any]) -> int:
    count = 0
    for mine, theirs in zip(items, before, strict=False):
        if mine != theirs:
            break
        count += 1
    return count
