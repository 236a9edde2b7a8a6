"""One tail of the events table per process, shared by every stream that process serves.

Each stream used to read the table itself five times a second: 50 open streams were 250 queries a second from an
idle web process. Now one thread reads the ids written since its last look (sse.GapWatch keeps them in order and
waits for a row still being committed), fetches those rows once and hands them to every subscription. A stream
reads the table itself only to catch up: from where its client resumes to where the tail was when it subscribed,
and again if it fell so far behind that its queue overflowed. The thread runs only while something subscribes.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass

from django.db import connection

from runs.events.models import RunEvent
from runs.events.sse import Event, GapWatch

logger = logging.getLogger(__name__)

# One look per process, however many streams it serves: often enough that delivery waits ~25 ms on average.
POLL_SECONDS = 0.05
# After a failed read (the database restarting, say): a pause, so the log is not flooded meanwhile.
ERROR_PAUSE_SECONDS = 5.0
# How long a hole in the ids may be a row still being committed (sse.GapWatch).
HOLE_WAIT_SECONDS = 1.0
BATCH = 500
# Batches a subscription holds before it is told to catch up from the table instead (a client that stopped reading
# must not grow the web process's memory without bound).
QUEUE_BATCHES = 1000


def latest_id() -> int:
    return RunEvent.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


@dataclass(frozen=True)
class Row:
    """An event as read from the table, with the columns a follower's filter looks at."""

    event: Event
    run_id: int | None
    experiment_id: int | None

    @property
    def id(self) -> int:
        assert self.event.id is not None
        return self.event.id


def rows(after: int, upto: int) -> list[Row]:
    """The events after id `after` up to `upto`, in id order, at most BATCH of them."""
    found = RunEvent.objects.filter(pk__gt=after, pk__lte=upto).order_by("pk")[:BATCH]
    return [Row(Event(row.pk, row.type, row.data), row.run_id, row.experiment_id) for row in found]


class Subscription:
    """What the tail has read since `boundary` (its position when this subscribed), in batches."""

    def __init__(self, boundary: int) -> None:
        self.boundary = boundary
        self.overflowed = False
        self._batches: queue.Queue[list[Row]] = queue.Queue(QUEUE_BATCHES)

    def put(self, events: list[Row]) -> None:
        if self.overflowed:
            return
        try:
            self._batches.put_nowait(events)
        except queue.Full:
            self.overflowed = True

    def get(self, timeout: float) -> list[Row] | None:
        try:
            return self._batches.get(timeout=max(timeout, 0))
        except queue.Empty:
            return None


class Tail:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscriptions: set[Subscription] = set()
        self._watch: GapWatch | None = None
        self._running = False

    def subscribe(self, after: int) -> Subscription:
        """Follows the tail for a stream that has handed out everything up to id `after`."""
        with self._lock:
            if self._watch is None:
                # (Re)starting: from this stream's position when it is behind, so that the tail's GapWatch, not a
                # plain read of the table, sees a row below the newest that is still being committed.
                self._watch = GapWatch(min(after, latest_id()), HOLE_WAIT_SECONDS)
            subscription = Subscription(self._watch.last)
            self._subscriptions.add(subscription)
            if not self._running:
                self._running = True
                threading.Thread(target=self._run, name="evalhub-events-tail", daemon=True).start()
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            self._subscriptions.discard(subscription)

    def _run(self) -> None:
        try:
            while True:
                with self._lock:
                    if not self._subscriptions:
                        self._watch, self._running = None, False
                        return
                    watch = self._watch
                assert watch is not None
                try:
                    more = self._step(watch)
                except Exception:
                    # A lost database connection must not end every stream: log it, reconnect on the next look.
                    logger.exception("Reading new events failed; trying again in %s s.", ERROR_PAUSE_SECONDS)
                    connection.close()
                    time.sleep(ERROR_PAUSE_SECONDS)
                    continue
                if not more:
                    time.sleep(POLL_SECONDS)
        finally:
            connection.close()

    def _step(self, watch: GapWatch) -> bool:
        """Hands out what was written since the last look; True when more is waiting already."""
        new_ids = list(RunEvent.objects.filter(pk__gt=watch.last).order_by("pk").values_list("pk", flat=True)[:BATCH])
        start = watch.last
        if not watch.release(new_ids, time.monotonic()):
            return False
        events = rows(start, watch.last)
        with self._lock:
            for subscription in self._subscriptions:
                subscription.put(events)
        return len(new_ids) == BATCH and watch.last == new_ids[-1]


TAIL = Tail()
