"""Fifty requests reserve at once, each on its own database connection: exactly the quota gets through."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, transaction
from django.test import override_settings

from runs.models import DailyRunQuota
from runs.quota import QuotaExceeded, reserve_run, utc_today

CONTENDERS = 50
QUOTA = 20


@pytest.mark.django_db(transaction=True)
class QuotaRaceTests:
    @override_settings(EVALHUB_DAILY_RUN_QUOTA=QUOTA)
    def test_fifty_concurrent_reservations_admit_exactly_the_quota(self) -> None:
        start = threading.Barrier(CONTENDERS)
        admitted: list[bool] = []
        lock = threading.Lock()

        def contend() -> None:
            try:
                start.wait()
                try:
                    with transaction.atomic():
                        reserve_run()
                    outcome = True
                except QuotaExceeded:
                    outcome = False
                with lock:
                    admitted.append(outcome)
            finally:
                connection.close()

        threads = [threading.Thread(target=contend) for _ in range(CONTENDERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)

        assert len(admitted) == CONTENDERS
        assert admitted.count(True) == QUOTA
        assert DailyRunQuota.objects.get(day=utc_today()).used == QUOTA
