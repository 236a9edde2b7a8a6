"""What each part of a run's life publishes: real runs through the pipeline (the worker's task, in this process)."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from runs.events.models import RunEvent
from runs.experiments.services import experiment_cancel
from runs.heartbeat import STALE_AFTER, runs_reap_stale
from runs.models import Run
from runs.services import run_cancel, run_start
from runs.tasks import execute_run, rescore_runs
from tests.base import make_demo_server, make_scenario
from tests.runs.experiments.helpers import start, tagged_scenarios


def published(**where: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(event.type, event.data) for event in RunEvent.objects.filter(**where).order_by("pk")]


@pytest.mark.django_db(transaction=True)
class PublishedEventTests:
    def test_a_run_publishes_queued_started_each_step_and_finished_with_its_verdict(self, alice: User) -> None:
        run = run_start(scenario=make_scenario(make_demo_server()), user=alice)

        execute_run(run.pk)  # the worker's task

        events = published(run_id=run.pk)
        assert [kind for kind, _ in events] == [
            "run.queued", "run.started", "run.step", "run.step", "run.step", "run.finished"
        ]  # fmt: skip
        queued, started, model, tool, answer, finished = (data for _, data in events)
        assert queued["scenario_name"] == "Weather in Paris" and queued["model"] == "evalhub-offline"
        assert started["run_id"] == run.pk and started["queued_ms"] >= 0 and started["worker"] == "unknown"
        # Every event of a run names its scenario: a scenario's pages follow its runs, new ones too.
        assert {data["scenario_id"] for _, data in events} == {run.scenario_id}
        assert (model["kind"], model["step"], model["tool_calls"]) == ("model", 1, ["get_weather"])
        assert (tool["kind"], tool["tool_name"], tool["is_error"]) == ("tool", "get_weather", False)
        assert isinstance(tool["duration_ms"], int)
        assert (answer["kind"], answer["step"], answer["tool_calls"], answer["finish_reason"]) == (
            "model", 2, [], "stop"
        )  # fmt: skip
        assert finished["status"] == "done" and (finished["score"], finished["passed"]) == (1.0, True)
        assert finished["total_cost_usd"] == finished["cost_usd"] == 0.0 and finished["judge_cost_usd"] is None
        # Names and numbers only: the prompt's coordinates, the arguments and the result stay on the run page.
        assert "48.85" not in json.dumps(events)

    def test_starting_a_run_publishes_the_quota_once_its_transaction_commits(self, alice: User) -> None:
        server = make_demo_server()
        run_start(scenario=make_scenario(server), user=alice)
        run_start(scenario=make_scenario(server, name="Second"), user=alice)

        quota = [data for _, data in published(type="quota.changed")]

        assert [(q["used"], q["limit"], q["remaining"]) for q in quota] == [(1, 100, 99), (2, 100, 98)]

    def test_a_transaction_that_rolls_back_publishes_nothing_and_one_that_commits_writes_once(
        self, alice: User
    ) -> None:
        scenario = make_scenario(make_demo_server())
        with pytest.raises(RuntimeError), transaction.atomic():
            run_start(scenario=scenario, user=alice)
            raise RuntimeError("the request failed after queueing")

        with transaction.atomic():
            kept = [run_start(scenario=scenario, user=alice) for _ in range(3)]

        assert [(kind, data["run_id"]) for kind, data in published(type="run.queued")] == [
            ("run.queued", run.pk) for run in kept
        ]
        quota = [data["used"] for _, data in published(type="quota.changed")]
        assert quota == [3]  # the rolled-back reservation said nothing, and one transaction says it once

    def test_an_experiment_publishes_its_progress_as_each_trial_finishes(self) -> None:
        experiment = start(tagged_scenarios(1), trials=2)

        for run in Run.objects.filter(experiment=experiment).order_by("pk"):
            execute_run(run.pk)

        progress = [data for _, data in published(type="experiment.progress", experiment_id=experiment.pk)]
        assert [(p["finished"], p["total"], p["status"], p["percentage"]) for p in progress] == [
            (1, 2, "running", 50.0),
            (2, 2, "done", 100.0),
        ]
        trials = published(experiment_id=experiment.pk, type="run.finished")
        assert [data["experiment_id"] for _, data in trials] == [experiment.pk] * 2

    def test_cancelled_reaped_and_rescored_runs_say_so(self, alice: User) -> None:
        scenario = make_scenario(make_demo_server())
        cancelled = run_cancel(run=run_start(scenario=scenario, user=alice))
        lost = run_start(scenario=scenario, user=alice)
        Run.objects.filter(pk=lost.pk).update(status="running", heartbeat_at=timezone.now() - STALE_AFTER * 2)
        done = run_start(scenario=scenario, user=alice)
        execute_run(done.pk)
        experiment = start(tagged_scenarios(1), trials=2)

        assert runs_reap_stale(now=timezone.now() + timedelta(seconds=1)) == 1
        rescore_runs([done.pk])
        experiment_cancel(experiment=experiment)

        assert published(run_id=cancelled.pk, type="run.finished")[0][1]["status"] == "cancelled"
        ((_, lost_event),) = published(run_id=lost.pk, type="run.finished")
        assert lost_event["status"] == "error" and lost_event["error"]["kind"] == "worker_lost"
        assert [kind for kind, _ in published(run_id=done.pk)][-2:] == ["run.finished", "run.scored"]
        trials = published(experiment_id=experiment.pk, type="run.finished")
        assert [data["status"] for _, data in trials] == ["cancelled", "cancelled"]
