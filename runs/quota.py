"""The daily run quota: how many runs may start per UTC day (EVALHUB_DAILY_RUN_QUOTA)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings
from django.db.models import F
from django.utils import timezone

from runs.events import publish as events
from runs.models import DailyRunQuota


@dataclass(frozen=True)
class QuotaStatus:
    used: int
    limit: int
    resets_at: datetime

    @property
    def remaining(self) -> int:
        return max(self.limit - self.used, 0)

    @property
    def exhausted(self) -> bool:
        return self.used >= self.limit


def utc_today(now: datetime | None = None) -> date:
    return (now or timezone.now()).astimezone(UTC).date()


def next_reset(now: datetime | None = None) -> datetime:
    """The quota resets at the next 00:00 UTC."""
    return datetime.combine(utc_today(now) + timedelta(days=1), time.min, tzinfo=UTC)


def quota_status(now: datetime | None = None) -> QuotaStatus:
    row = DailyRunQuota.objects.filter(day=utc_today(now)).first()
    return QuotaStatus(
        used=row.used if row else 0,
        limit=settings.EVALHUB_DAILY_RUN_QUOTA,
        resets_at=next_reset(now),
    )


class QuotaExceeded(Exception):
    """A run was refused because today's quota is used up; the message says when it resets."""

    def __init__(self, status: QuotaStatus, now: datetime | None = None) -> None:
        self.status = status
        super().__init__(
            f"Daily quota of {status.limit} runs reached; it resets at 00:00 UTC "
            f"(in {countdown(status.resets_at - (now or timezone.now()))})."
        )


def countdown(left: timedelta) -> str:
    minutes = max(int(left.total_seconds() // 60), 1)
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if hours else f"{minutes} min"


def reserve_run(now: datetime | None = None) -> None:
    """Take one run from today's quota or raise QuotaExceeded."""
    reserve_runs(1, now)


def reserve_runs(count: int, now: datetime | None = None) -> None:
    """Take `count` runs from today's quota, all or none, or raise QuotaExceeded.

    One conditional UPDATE (`used = used + count WHERE used <= quota - count`), so concurrent requests on PostgreSQL
    can never admit more runs than the quota, whatever their interleaving.
    """
    day = utc_today(now)
    limit = settings.EVALHUB_DAILY_RUN_QUOTA
    DailyRunQuota.objects.get_or_create(day=day)
    if not DailyRunQuota.objects.filter(day=day, used__lte=limit - count).update(used=F("used") + count):
        raise QuotaExceeded(quota_status(now), now)
    events.quota_changed(quota_status(now))
