"""Shipped evals imported from real servers and run at their own level, through the real run pipeline."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from evalhub.scenarios.models import Scenario
from evalhub.server_evals.services import (
    SideEffectsUnacknowledged,
    shipped_evals_sync,
    side_effects_acknowledge,
)
from evalhub.servers.services import server_inspect
from runs import pipeline
from runs.ci.runner import EXIT_INFRA
from runs.levels import NOT_EXECUTED
from runs.models import Run
from runs.services import run_start
from tests.base import make_demo_server
from tests.runs.test_ci_command import evalhub


def execute(scenario: Scenario, user: User) -> Run:
    run = run_start(scenario=scenario, user=user)
    pipeline.execute_run(run.pk, worker="test-worker")
    return Run.objects.get(pk=run.pk)


def imported(user: User) -> dict[str, Scenario]:
    server = make_demo_server()
    server_inspect(server=server)
    shipped_evals_sync(server=server, user=user)
    side_effects_acknowledge(server=server, user=user)
    return {scenario.shipped_eval_id: scenario for scenario in server.scenarios.all()}


@pytest.mark.django_db(transaction=True)
class DemoLevelTests:
    def test_each_level_runs_as_the_proposal_says(self, alice: User) -> None:
        scenarios = imported(alice)

        invocation = execute(scenarios["weather-picks-get-weather"], alice)
        (call,) = invocation.tool_calls
        assert (call["toolName"], call["args"]) == ("get_weather", {"latitude": 49.01, "longitude": 2.55})
        assert call["result"]["content"][0]["text"] == NOT_EXECUTED
        assert len(invocation.transcript["steps"]) == 1 and invocation.passed is True

        execution = execute(scenarios["paris-weather-is-stable"], alice)
        assert execution.model_calls == [] and execution.transcript["steps"][0]["direct"] is True
        (call,) = execution.tool_calls
        assert call["toolName"] == "get_weather" and call["isError"] is False
        assert (execution.status, execution.passed, execution.score) == ("done", True, 1.0)

        scenario = execute(scenarios["weekend-in-paris"], alice)
        assert scenario.status == "done" and scenario.settings["max_turns"] == 6
        assert len(scenario.transcript["steps"]) >= 2


@pytest.mark.django_db
class SideEffectTests:
    def test_an_execution_run_is_refused_until_someone_acknowledges_and_who_is_kept(self, alice: User) -> None:
        server = make_demo_server()
        server_inspect(server=server)
        shipped_evals_sync(server=server, user=alice, import_ids=["paris-weather-is-stable", "weekend-in-paris"])
        scenarios = {scenario.shipped_eval_id: scenario for scenario in server.scenarios.all()}

        with pytest.raises(SideEffectsUnacknowledged, match="call the tools of “Demo travel server” for real"):
            run_start(scenario=scenarios["paris-weather-is-stable"], user=alice)
        assert not Run.objects.exists()
        run_start(scenario=scenarios["weekend-in-paris"], user=alice)  # other levels need no acknowledgment

        side_effects_acknowledge(server=server, user=alice)
        run_start(scenario=scenarios["paris-weather-is-stable"], user=alice)

        server.refresh_from_db()
        assert server.side_effects_acknowledged_by == alice and server.side_effects_acknowledged_at is not None
        assert Run.objects.count() == 2


@pytest.mark.django_db(transaction=True)
class SideEffectsCliTests:
    def test_the_cli_refuses_execution_evals_until_told_to_acknowledge(self, alice: User) -> None:
        server = make_demo_server()
        server_inspect(server=server)
        shipped_evals_sync(server=server, user=alice)

        refused = evalhub("--tag", "execution")

        assert refused.returncode == EXIT_INFRA and not Run.objects.exists()
        assert "Acknowledge that on the server's page first" in refused.stderr
        assert "--acknowledge-side-effects" in refused.stderr

        started = evalhub("--tag", "execution", "--acknowledge-side-effects")

        assert started.returncode == 0, started.stderr
        assert Run.objects.filter(scenario__level="execution").count() == 2
        server.refresh_from_db()
        assert server.side_effects_acknowledged_at is not None and server.side_effects_acknowledged_by is None
