"""Server-sent events on the wire (https://html.spec.whatwg.org/multipage/server-sent-events.html), both ways,
and which newly read event ids a follower may hand out yet. Pure: no Django, no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from evalhub.ids import parse_id

# How long a client waits before it reconnects when a stream ends (it then sends Last-Event-ID).
RETRY_MS = 1000


@dataclass(frozen=True)
class Event:
    id: int | None
    type: str
    data: dict[str, Any]


def frame(event: Event) -> str:
    """One event: `id`, `event` and the JSON body on one `data` line (JSON never holds a raw newline)."""
    body = json.dumps({"id": event.id, "type": event.type, "data": event.data}, separators=(",", ":"))
    head = f"id: {event.id}\n" if event.id is not None else ""
    return f"{head}event: {event.type}\ndata: {body}\n\n"


def comment(text: str) -> str:
    """A line clients ignore: keeps proxies from closing an idle stream, and tells our own clients it is alive."""
    return f": {text}\n\n"


def retry() -> str:
    return f"retry: {RETRY_MS}\n\n"


@dataclass
class _Pending:
    id: str | None = None
    type: str = "message"
    data: list[str] = field(default_factory=list)


def parse(lines: Iterable[str]) -> Iterator[Event | None]:
    """Events from a stream's lines, in order; None for each comment (a keepalive). Fields other than id, event
    and data are ignored, and so is an event whose data is not our JSON object."""
    pending = _Pending()
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if pending.data:
                event = _event(pending)
                if event is not None:
                    yield event
            pending = _Pending()
            continue
        if line.startswith(":"):
            yield None
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "id":
            pending.id = value
        elif name == "event":
            pending.type = value
        elif name == "data":
            pending.data.append(value)


def _event(pending: _Pending) -> Event | None:
    try:
        body = json.loads("\n".join(pending.data))
    except ValueError:
        return None
    if not isinstance(body, dict) or not isinstance(body.get("data"), dict):
        return None
    event_id = parse_id(pending.id) if pending.id else None
    return Event(event_id, pending.type, body["data"])


@dataclass
class GapWatch:
    """Hands out event ids in order without skipping one that is still being written.

    On PostgreSQL an id is taken when a row is inserted but becomes visible when its transaction commits, so id 11
    may be read before id 10 exists. A follower that handed out 11 and moved on would lose 10 for good. So ids are
    released only while they follow on from the last one released; a hole holds back what comes after it until
    it has been open for `wait` seconds (ids lost to a rolled-back insert never fill, and pruning leaves holes).
    """

    last: int
    wait: float
    _hole_since: dict[int, float] = field(default_factory=dict)

    def release(self, ids: list[int], now: float) -> int:
        """How many of `ids` (ascending, all above `last`) may be handed out now; advances `last` past them."""
        released = 0
        for event_id in ids:
            if event_id != self.last + 1:
                since = self._hole_since.setdefault(self.last + 1, now)
                if now - since < self.wait:
                    break
                self._hole_since.pop(self.last + 1)
            self.last = event_id
            released += 1
        return released
