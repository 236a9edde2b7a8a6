"""GET /api/v1/events: the live event stream, as server-sent events.

The events of the reference's WebSocket API (runs queued, started, stepping and finished, experiment progress,
quota changes) over SSE: it passes proxies as plain HTTP, browsers reconnect by themselves, and a reconnecting
client sends Last-Event-ID to get what it missed.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Literal

from django.conf import settings
from django.http import HttpRequest, StreamingHttpResponse
from ninja import Field, Query, Router, Schema

from evalhub.api.common import ApiError, ErrorCode, Id, invalid, principal, responses
from evalhub.ids import ACCEPTED, MAX_ID, parse_id
from evalhub.slots import Slots
from runs.events import sse
from runs.events.stream import TYPES, EventFilter, follow
from runs.events.tail import latest_id

router = Router()

# A stream holds a thread of the web server for as long as it is open: each process serves
# EVALHUB_EVENT_STREAMS at once, EVALHUB_EVENT_STREAMS_PER_USER of them to one user (whichever keys or pages).
_streams = Slots()
# A stream ends after this long; its client reconnects with Last-Event-ID and loses nothing (the threads of a web
# server are not held for ever by clients that went away without closing).
STREAM_SECONDS = 300.0

EventType = Literal[TYPES]  # type: ignore[valid-type]

EVENTS_OPENAPI = {
    "responses": {
        200: {
            "description": (
                'text/event-stream. Each event: `id: <n>`, `event: <type>`, `data: {"id", "type", "data"}`. '
                "Types: " + ", ".join(f"`{t}`" for t in TYPES) + ". A `: keepalive` comment every `keepalive` "
                "seconds; the stream ends after 5 minutes and the client reconnects with Last-Event-ID."
            ),
            "content": {"text/event-stream": {"schema": {"type": "string"}}},
        }
    }
}


class EventParams(Schema):
    run: list[Id] = Field([], max_length=500, description="Only events of these runs (repeat the parameter).")
    experiment: Id | None = Field(None, description="Only events of this experiment and its runs.")
    scenario: Id | None = Field(None, description="Only events of this scenario's runs (new ones included).")
    type: list[EventType] = Field([], description="Only these event types (repeat the parameter).")
    after: int | None = Field(
        None,
        ge=0,
        le=MAX_ID,
        description="Start after this event id (0: from the oldest kept). Last-Event-ID, when sent, wins. "
        "Neither: from now on. An id beyond the newest gets a `stream.gap` event, then events from now on.",
    )
    keepalive: float = Field(15.0, ge=0.5, le=60, description="Seconds between keepalive comments when idle.")


def _resume_from(request: HttpRequest, params: EventParams) -> int | None:
    header = request.headers.get("Last-Event-ID", "").strip()
    if not header:
        return params.after
    resume_from = parse_id(header)
    if resume_from is None:
        raise invalid(
            f"Last-Event-ID must be an event id ({ACCEPTED}), not {header[:40]!r}{'…' if len(header) > 40 else ''}.",
            field="Last-Event-ID",
        )
    return resume_from


@router.get(
    "/events",
    response=responses({200: str}),
    openapi_extra=EVENTS_OPENAPI,
    summary="Live events (server-sent events)",
)
def events_stream(request: HttpRequest, params: Query[EventParams]) -> StreamingHttpResponse:
    """Follow runs, experiments and the quota as they change. Resume after a disconnect with `Last-Event-ID`: the
    last `EVALHUB_EVENTS_KEPT` events (10,000 by default) are kept; a client that missed older ones first gets a
    `stream.gap` event and should re-read what it follows."""
    resume_from = _resume_from(request, params)
    # "From now on" means from this request, not from whenever the client first reads.
    after = latest_id() if resume_from is None else resume_from
    only = EventFilter(
        run_ids=tuple(params.run),
        experiment_id=params.experiment,
        types=tuple(params.type),
        scenario_id=params.scenario,
    )
    user_id = int(principal(request).user.pk)
    _take_stream_slot(user_id)
    response = StreamingHttpResponse(_Stream(after, only, params.keepalive, user_id), content_type="text/event-stream")
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx would otherwise hold events back until its buffer fills
    return response


def _take_stream_slot(user_id: int) -> None:
    """A 429 saying which limit refused the stream; pages then refresh on a timer and the CLI polls instead."""
    refusal = _streams.take(
        user_id, total=settings.EVALHUB_EVENT_STREAMS, per_user=settings.EVALHUB_EVENT_STREAMS_PER_USER
    )
    if refusal == "per_user":
        raise ApiError(
            ErrorCode.RATE_LIMIT_EXCEEDED,
            f"You already have {_streams.held(user_id)} event streams open on this server process, the most one "
            f"user may (EVALHUB_EVENT_STREAMS_PER_USER={settings.EVALHUB_EVENT_STREAMS_PER_USER}); close a page or "
            "stream you no longer follow, or poll GET /api/v1/runs instead.",
            {"retry_after": 5, "limit": "EVALHUB_EVENT_STREAMS_PER_USER"},
        )
    if refusal == "total":
        raise ApiError(
            ErrorCode.RATE_LIMIT_EXCEEDED,
            f"This server process already serves {settings.EVALHUB_EVENT_STREAMS} event streams "
            "(EVALHUB_EVENT_STREAMS); try again in a few seconds, or poll GET /api/v1/runs instead.",
            {"retry_after": 5, "limit": "EVALHUB_EVENT_STREAMS"},
        )


class _Stream:
    """The frames of one stream. The WSGI server closes it when the client goes or the stream ends, even before
    the first frame, and only then is its slot given back (a generator's `finally` would not run if unstarted)."""

    def __init__(self, after: int, only: EventFilter, keepalive: float, user_id: int) -> None:
        self._frames = _frames(after, only, keepalive)
        self._user_id = user_id
        self._closed = False

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        return next(self._frames)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._frames.close()
            _streams.give_back(self._user_id)


def _frames(after: int, only: EventFilter, keepalive: float) -> Generator[str, None, None]:
    yield sse.retry()
    yield sse.comment("connected")
    for event in follow(after=after, only=only, keepalive=keepalive, lifetime=STREAM_SECONDS):
        yield sse.frame(event) if event is not None else sse.comment("keepalive")
