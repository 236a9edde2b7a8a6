"""Following the events table: what GET /api/v1/events streams and what `manage.py evalhub run` waits on locally.

A follower reads the ids written after the last one it handed out a few times a second (one index range scan),
hands them out in id order without skipping one still being written (sse.GapWatch), and yields None when it has
had nothing to say for `keepalive` seconds, so its consumer can check on other things.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from django.db.models import Max, Min, QuerySet

from runs.events.models import RunEvent
from runs.events.sse import Event, GapWatch

TYPES = (
    "run.queued",
    "run.started",
    "run.step",
    "run.finished",
    "run.scored",
    "experiment.progress",
    "quota.changed",
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
POLL_SECONDS = 0.2
# How long a hole in the ids may be a row still being committed (sse.GapWatch).
HOLE_WAIT_SECONDS = 1.0
BATCH = 500


@dataclass(frozen=True)
class EventFilter:
    """Which events a follower wants: of these runs, of this experiment, of this scenario's runs, of these types
    (empty: any)."""

    run_ids: tuple[int, ...] = ()
    experiment_id: int | None = None
    types: tuple[str, ...] = ()
    scenario_id: int | None = None

    def apply(self, events: QuerySet[RunEvent]) -> QuerySet[RunEvent]:
        if self.run_ids:
            events = events.filter(run_id__in=self.run_ids)
        if self.experiment_id is not None:
            events = events.filter(experiment_id=self.experiment_id)
        if self.types:
            events = events.filter(type__in=self.types)
        if self.scenario_id is not None:
            # Every run event names its scenario (runs.events.publish); the ids around it bound the scan.
            events = events.filter(data__scenario_id=self.scenario_id)
        return events


def latest_id() -> int:
    return RunEvent.objects.aggregate(latest=Max("pk"))["latest"] or 0


def follow(
    *,
    after: int | None,
    only: EventFilter,
    keepalive: float,
    lifetime: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[Event | None]:
    """The events after id `after` (None: from now on) that `only` selects, as they are written; None after each
    `keepalive` seconds without one. Ends after `lifetime` seconds (None: when the consumer stops)."""
    latest = latest_id()
    after = latest if after is None else after
    oldest = RunEvent.objects.aggregate(oldest=Min("pk"))["oldest"]
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
    watch = GapWatch(after, HOLE_WAIT_SECONDS)
    began = said = clock()
    while lifetime is None or clock() - began < lifetime:
        new_ids = list(RunEvent.objects.filter(pk__gt=watch.last).order_by("pk").values_list("pk", flat=True)[:BATCH])
        start = watch.last
        if watch.release(new_ids, clock()):
            for row in only.apply(RunEvent.objects.filter(pk__gt=start, pk__lte=watch.last)).order_by("pk"):
                yield Event(row.pk, row.type, row.data)
                said = clock()
            if len(new_ids) == BATCH and watch.last == new_ids[-1]:
                continue  # more are waiting: no pause
        if clock() - said >= keepalive:
            yield None
            said = clock()
        sleep(POLL_SECONDS)
