"""The daily run quota: how many runs may start per UTC day (EVALHUB_DAILY_RUN_QUOTA)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings
from django.utils import timezone

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
