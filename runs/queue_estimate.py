"""Where a queued run stands: its place in the queue and when it is likely to start.

The estimate is deliberately simple and says so: runs start in the order they were queued (oldest first), the
workers seen in the last minute each carry EVALHUB_WORKER_CONCURRENCY runs at once (one worker is assumed when none
was seen), and every run ahead takes the median duration of the last 50 finished runs. No finished run with a
duration yet means no estimate (None), not a guess.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Q
from django.utils import timezone

from evalhub.models import WorkerHeartbeat
from runs.models import Run

RECENT_RUNS = 50
BASIS = (
    "median duration of the last 50 finished runs x the runs ahead, spread over the live workers' slots "
    "(EVALHUB_WORKER_CONCURRENCY each)"
)


@dataclass(frozen=True)
class QueueEstimate:
    position: int  # 1: the next run to start.
    running: int
    slots: int
    typical_ms: int | None
    estimated_start: datetime | None

    def as_dict(self) -> dict[str, object]:
        return {
            "position": self.position,
            "estimated_start": self.estimated_start.isoformat() if self.estimated_start else None,
            "basis": BASIS,
        }


def wait_seconds(*, ahead: int, running: int, slots: int, typical_ms: int) -> float:
    """Seconds until a slot frees for a run with `ahead` queued runs before it.

    Runs finish in waves of `slots`: with `running + ahead` runs to start or finish before it and `slots` places,
    it starts once `running + ahead - slots + 1` of them have ended, i.e. after ceil(that / slots) waves.
    """
    must_end = running + ahead - slots + 1
    if must_end <= 0:
        return 0.0
    return math.ceil(must_end / slots) * typical_ms / 1000


def queue_estimate(run: Run, *, now: datetime | None = None) -> QueueEstimate | None:
    """None unless the run is queued."""
    if run.status != Run.Status.QUEUED:
        return None
    now = now or timezone.now()
    queued = Run.objects.filter(status=Run.Status.QUEUED)
    ahead = queued.filter(Q(created_at__lt=run.created_at) | Q(created_at=run.created_at, pk__lt=run.pk)).count()
    running = Run.objects.filter(status=Run.Status.RUNNING).count()
    workers = WorkerHeartbeat.objects.filter(last_seen__gte=now - timedelta(minutes=1)).count()
    slots = max(workers, 1) * settings.EVALHUB_WORKER_CONCURRENCY
    durations = [
        ms
        for ms in Run.objects.filter(finished_at__isnull=False, duration_ms__isnull=False)
        .order_by("-finished_at")
        .values_list("duration_ms", flat=True)[:RECENT_RUNS]
        if ms is not None
    ]
    typical = int(statistics.median(durations)) if durations else None
    start = None
    if typical is not None:
        start = now + timedelta(seconds=wait_seconds(ahead=ahead, running=running, slots=slots, typical_ms=typical))
    return QueueEstimate(position=ahead + 1, running=running, slots=slots, typical_ms=typical, estimated_start=start)
