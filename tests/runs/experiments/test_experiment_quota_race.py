"""Fifty experiments start at once, each on its own database connection: never more runs than the quota."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.test import override_settings

from evalhub.providers.models import offline_provider
from runs.experiments.models import Experiment
from runs.experiments.services import ExperimentQuotaExceeded, ModelChoice, experiment_start
from runs.models import DailyRunQuota, Run
from runs.quota import utc_today
from tests.runs.experiments.helpers import tagged_scenarios

CONTENDERS = 50
QUOTA = 40
RUNS_EACH = 3  # 40 // 3 = 13 experiments fit; 1 run of the quota stays unused


@pytest.mark.django_db(transaction=True)
class ExperimentQuotaRaceTests:
    @override_settings(EVALHUB_DAILY_RUN_QUOTA=QUOTA)
    def test_fifty_concurrent_experiments_admit_whole_experiments_within_the_quota(self) -> None:
        scenarios = tagged_scenarios(1)
        model = ModelChoice(offline_provider(), "evalhub-offline")
        start = threading.Barrier(CONTENDERS)
        outcomes: list[str] = []
        lock = threading.Lock()

        def contend() -> None:
            try:
                start.wait()
                try:
                    experiment_start(name="race", scenarios=scenarios, models=[model], trials=RUNS_EACH, user=None)
                    outcome = "admitted"
                except ExperimentQuotaExceeded as exc:
                    outcome = str(exc)
                with lock:
                    outcomes.append(outcome)
            finally:
                connection.close()

        threads = [threading.Thread(target=contend) for _ in range(CONTENDERS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)

        assert len(outcomes) == CONTENDERS
        assert outcomes.count("admitted") == QUOTA // RUNS_EACH
        refusals = {outcome.rsplit(";", 1)[0] for outcome in outcomes if outcome != "admitted"}
        assert refusals == {"This experiment needs 3 runs; 1 is left today"}
        assert DailyRunQuota.objects.get(day=utc_today()).used == 39
        assert Experiment.objects.count() == 13
        assert Run.objects.count() == 39
