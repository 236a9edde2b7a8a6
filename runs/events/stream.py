"""Following the events table: what GET /api/v1/events streams and what `manage.py evalhub run` waits on locally.

A follower catches up from the table to where the process's one tail of it is (runs.events.tail), then takes what
the tail reads as it is written, in id order, filtered here; it yields None when it has had nothing to say for
`keepalive` seconds, so its consumer can check on other things.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from runs.events.models import RunEvent
from runs.events.sse import Event
from runs.events.tail import TAIL, Row, latest_id, rows

TYPES = (
    "run.queued",
    "run.started",
    "run.step",
    "run.finished",
    "run.scored",
    "experiment.progress",
    "quota.changed",
    # A check-up of a server (evalhub/checkups): queued, its progress, finished with its verdict.
    "checkup.queued",
    "checkup.progress",
    "checkup.finished",
)
# What a list of runs follows (the Runs, Scenarios and scenario pages): runs appearing, starting and ending, not
# their steps. Always, not only while a listed run is under way: a run started elsewhere (CLI, API, another tab)
# appears by itself.
LIST_TYPES = ("run.queued", "run.started", "run.finished", "run.scored")


def list_events_query(*, scenario_id: int | None = None) -> str:
    """The GET /api/v1/events query a live list of runs follows (static/js/live.js)."""
    query = "&".join(f"type={kind}" for kind in LIST_TYPES)
    return query + (f"&scenario={scenario_id}" if scenario_id is not None else "")


# Sent, without an id, to a client resuming from an event older than those still kept: it missed some.
GAP = "stream.gap"


@dataclass(frozen=True)
class EventFilter:
    """Which events a follower wants: of these runs, of this experiment, of this scenario's runs, of these types
    (empty: any)."""

    run_ids: tuple[int, ...] = ()
    experiment_id: int | None = None
    types: tuple[str, ...] = ()
    scenario_id: int | None = None

    def matches(self, row: Row) -> bool:
        return (
            (not self.run_ids or row.run_id in self.run_ids)
            and (self.experiment_id is None or row.experiment_id == self.experiment_id)
            and (not self.types or row.event.type in self.types)
            # Every run event names its scenario (runs.events.publish).
            and (self.scenario_id is None or row.event.data.get("scenario_id") == self.scenario_id)
        )


def follow(
    *,
    after: int | None,
    only: EventFilter,
    keepalive: float,
    lifetime: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[Event | None]:
    """The events after id `after` (None: from now on) that `only` selects, as they are written; None after each
    `keepalive` seconds without one. Ends after `lifetime` seconds (None: when the consumer stops)."""
    latest = latest_id()
    after = latest if after is None else after
    oldest = RunEvent.objects.order_by("pk").values_list("pk", flat=True).first()
    if oldest is not None and after < oldest - 1:
        if after:  # 0 asks for everything kept: nothing was missed
            yield Event(
                None, GAP, {"after": after, "resumed_from": oldest, "reason": "older events are no longer kept"}
            )
        after = oldest - 1
    elif after > latest:
        # An id from another server or from before the database was reset: waiting for it to come round would be
        # silence for as long as the stream lasts, so the client is told and follows from now on.
        yield Event(
            None,
            GAP,
            {
                "after": after,
                "resumed_from": latest + 1,
                "reason": f"no event has this id yet (the newest is {latest})",
            },
        )
        after = latest
    began = said = clock()

    def time_left() -> float:
        return float("inf") if lifetime is None else lifetime - (clock() - began)

    while time_left() > 0:
        subscription = TAIL.subscribe(after)
        try:
            # Catch up from the table up to where the tail was when this subscribed; the tail hands out the rest.
            while after < subscription.boundary:
                caught_up = rows(after, subscription.boundary)
                for row in caught_up:
                    if only.matches(row):
                        yield row.event
                        said = clock()
                after = caught_up[-1].id if caught_up else subscription.boundary
            while not subscription.overflowed and time_left() > 0:
                batch = subscription.get(timeout=min(keepalive - (clock() - said), time_left()))
                for row in batch or []:
                    if row.id <= after:
                        continue  # read from the table while catching up
                    after = row.id
                    if only.matches(row):
                        yield row.event
                        said = clock()
                if clock() - said >= keepalive:
                    yield None
                    said = clock()
        finally:
            TAIL.unsubscribe(subscription)
