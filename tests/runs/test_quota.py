from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.test import override_settings

from runs.models import DailyRunQuota
from runs.quota import QuotaExceeded, next_reset, quota_status, reserve_run, utc_today


@pytest.mark.django_db
class QuotaStatusTests:
    def test_a_day_without_runs_has_the_full_quota(self) -> None:
        status = quota_status()

        assert (status.used, status.limit, status.remaining, status.exhausted) == (0, 100, 100, False)

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=3)
    def test_it_counts_todays_runs_only(self) -> None:
        now = datetime(2026, 3, 1, 23, 59, tzinfo=UTC)
        DailyRunQuota.objects.create(day=utc_today(now), used=3)
        DailyRunQuota.objects.create(day=datetime(2026, 2, 28, tzinfo=UTC).date(), used=1)

        status = quota_status(now)

        assert (status.used, status.remaining, status.exhausted) == (3, 0, True)

    def test_it_resets_at_the_next_midnight_utc(self) -> None:
        assert next_reset(datetime(2026, 3, 1, 21, 48, tzinfo=UTC)) == datetime(2026, 3, 2, tzinfo=UTC)
        assert next_reset(datetime(2026, 12, 31, 0, 0, tzinfo=UTC)) == datetime(2027, 1, 1, tzinfo=UTC)


@pytest.mark.django_db
class ReserveRunTests:
    @override_settings(EVALHUB_DAILY_RUN_QUOTA=2)
    def test_it_admits_runs_up_to_the_quota_then_refuses_with_the_reset_time(self) -> None:
        now = datetime(2026, 3, 1, 20, 48, tzinfo=UTC)
        reserve_run(now)
        reserve_run(now)

        with pytest.raises(QuotaExceeded) as refused:
            reserve_run(now)

        assert str(refused.value) == "Daily quota of 2 runs reached; it resets at 00:00 UTC (in 3 h 12 min)."
        assert DailyRunQuota.objects.get(day=utc_today(now)).used == 2

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=1)
    def test_the_quota_resets_at_midnight_utc(self) -> None:
        reserve_run(datetime(2026, 3, 1, 23, 59, 59, tzinfo=UTC))
        with pytest.raises(QuotaExceeded):
            reserve_run(datetime(2026, 3, 1, 23, 59, 59, tzinfo=UTC))

        reserve_run(datetime(2026, 3, 2, 0, 0, 0, tzinfo=UTC))

        assert quota_status(datetime(2026, 3, 2, 0, 1, tzinfo=UTC)).used == 1
