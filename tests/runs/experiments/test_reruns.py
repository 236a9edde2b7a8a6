"""An inconclusive trial is run once more (on by default): real runs on the demo server, with a scripted provider
endpoint whose first call fails, executed by the worker's own task in this process."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from evalhub.providers.models import Provider
from evalhub.scenarios.models import Scenario
from runs.experiments.models import Experiment, ExperimentCell
from runs.experiments.services import ModelChoice
from runs.heartbeat import STALE_AFTER, runs_reap_stale
from runs.models import DailyRunQuota, Run
from runs.tasks import execute_run
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import (
    Answer,
    ScriptedServer,
    completion,
    openai_error,
    tool_call,
)
from tests.runs.experiments.helpers import second_provider, start, tagged_scenarios

PARIS = '{"latitude": 48.85, "longitude": 2.35}'


def weather(provider: Provider) -> Scenario:
    return make_scenario(make_demo_server(), provider=provider)


def runs_of(experiment: Experiment) -> list[Run]:
    return list(Run.objects.filter(experiment=experiment).order_by("pk"))


def quota_used() -> int:
    return sum(DailyRunQuota.objects.values_list("used", flat=True))


# Transactional: the pipeline closes and reopens database connections, as the worker does.
@pytest.mark.django_db(transaction=True)
class RerunInconclusiveTests:
    def test_an_outage_on_the_first_attempt_is_re_run_and_the_trial_decided_by_the_re_run(
        self, scripted: ScriptedServer
    ) -> None:
        provider = make_scripted_provider(scripted.base_url)
        # The first run: a 500 on every one of its 4 attempts. The re-run: get_weather, then an answer.
        scripted.script(*[openai_error(500, "The server had an error.") for _ in range(4)])
        scripted.script(
            Answer(200, completion(tool_calls=[tool_call("c1", "get_weather", PARIS)])),
            Answer(200, completion(content="Sunny.")),
        )
        experiment = start([weather(provider)], trials=1, models=[ModelChoice(provider, "gpt-4o")])
        assert experiment.rerun_inconclusive
        (first,) = runs_of(experiment)

        execute_run(first.pk)

        first.refresh_from_db()
        assert (first.verdict, first.failure_cause) == ("inconclusive", "provider")
        rerun = runs_of(experiment)[-1]
        assert rerun.pk != first.pk and (rerun.cell_id, rerun.trial, rerun.status) == (first.cell_id, 1, "queued")
        assert quota_used() == 2  # the re-run took a run of the quota, like any run
        experiment.refresh_from_db()
        assert (experiment.status, experiment.finished_runs) == ("running", 0)

        execute_run(rerun.pk)

        rerun.refresh_from_db()
        assert rerun.verdict == "pass", rerun.failure_reason
        cell = ExperimentCell.objects.get()
        # The trial counts once, by its re-run: 1/1 passed, nothing inconclusive left.
        assert (cell.finished, cell.counted, cell.passes, cell.inconclusive, cell.reruns) == (1, 1, 1, 0, 1)
        assert cell.failure_causes == {}
        experiment.refresh_from_db()
        assert (experiment.status, experiment.finished_runs) == ("done", 1)
        assert len(runs_of(experiment)) == 2

    def test_a_trial_is_re_run_once_only_and_then_stays_inconclusive(self) -> None:
        # Nothing listens on the provider's port: both the run and its re-run fail to reach it.
        down = second_provider("Down", ("down-model",))
        experiment = start([weather(down)], trials=1, models=[ModelChoice(down, "down-model")])
        (first,) = runs_of(experiment)

        execute_run(first.pk)
        rerun = runs_of(experiment)[-1]
        execute_run(rerun.pk)

        assert len(runs_of(experiment)) == 2
        cell = ExperimentCell.objects.get()
        assert (cell.counted, cell.inconclusive, cell.reruns) == (0, 1, 1)
        assert cell.failure_causes == {"provider": 1}
        assert cell.counts.text == "0 passed · 0 failed · 1 inconclusive"
        experiment.refresh_from_db()
        assert experiment.status == "done"

    def test_turned_off_an_inconclusive_trial_is_left_as_it_is(self) -> None:
        down = second_provider("Down", ("down-model",))
        experiment = start(
            [weather(down)], trials=1, models=[ModelChoice(down, "down-model")], rerun_inconclusive=False
        )
        (first,) = runs_of(experiment)

        execute_run(first.pk)

        assert len(runs_of(experiment)) == 1
        assert quota_used() == 1
        cell = ExperimentCell.objects.get()
        assert (cell.inconclusive, cell.reruns) == (1, 0)
        experiment.refresh_from_db()
        assert experiment.status == "done"

    def test_no_quota_left_leaves_the_trial_inconclusive(self, settings: object) -> None:
        down = second_provider("Down", ("down-model",))
        experiment = start([weather(down)], trials=1, models=[ModelChoice(down, "down-model")])
        settings.EVALHUB_DAILY_RUN_QUOTA = 1  # type: ignore[attr-defined]
        (first,) = runs_of(experiment)

        execute_run(first.pk)

        assert len(runs_of(experiment)) == 1
        assert ExperimentCell.objects.get().inconclusive == 1


@pytest.mark.django_db
class RerunLostTrialTests:
    def test_a_trial_whose_worker_was_lost_is_re_run_by_the_reaper(self) -> None:
        experiment = start(tagged_scenarios(1), trials=1)
        (lost,) = runs_of(experiment)
        long_ago = timezone.now() - STALE_AFTER - timedelta(seconds=5)
        Run.objects.filter(pk=lost.pk).update(status="running", started_at=long_ago, heartbeat_at=long_ago)

        assert runs_reap_stale() == 1

        lost.refresh_from_db()
        assert (lost.status, lost.verdict, lost.failure_cause) == ("error", "inconclusive", "harness")
        rerun = runs_of(experiment)[-1]
        assert rerun.pk != lost.pk and (rerun.trial, rerun.status) == (1, "queued")
        experiment.refresh_from_db()
        assert experiment.status == "running"
