from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.test import override_settings

from evalhub.servers.models import McpServer
from runs.events.models import RunEvent
from runs.models import DailyRunQuota, Run
from runs.quota import QuotaExceeded, utc_today
from runs.services import run_cancel, run_start, runs_start_many
from tests.base import make_demo_server, make_scenario


@pytest.fixture
def server(db: None) -> McpServer:
    server = make_demo_server()
    server.record_tools([{"name": "get_weather", "inputSchema": {"type": "object"}}])
    return server


@pytest.mark.django_db
class RunStartTests:
    def test_it_queues_a_run_that_records_what_it_runs_with(
        self,
        server: McpServer,
        alice: User,
        django_capture_on_commit_callbacks: Callable,  # type: ignore[type-arg]
    ) -> None:
        scenario = make_scenario(server, max_turns=4)

        with django_capture_on_commit_callbacks() as callbacks:
            run = run_start(scenario=scenario, user=alice)

        assert run.status == Run.Status.QUEUED
        assert (run.model, run.server, run.provider) == ("evalhub-offline", server, scenario.provider)
        assert run.tools_hash == server.latest_snapshot().tools_hash  # type: ignore[union-attr]
        assert run.started_by == alice
        assert run.settings["max_turns"] == 4 and run.settings["prompt"] == scenario.prompt
        assert run.transcript == {"prompt": scenario.prompt, "steps": []}
        # The task is only sent once the run is committed, so the worker always finds it; so are its events.
        assert len(callbacks) == 2
        assert not RunEvent.objects.exists()
        for callback in callbacks[:1]:  # the events: run.queued and the quota, in one write
            callback()
        assert list(RunEvent.objects.values_list("type", "run_id")) == [("quota.changed", None), ("run.queued", run.pk)]
        assert DailyRunQuota.objects.get(day=utc_today()).used == 1

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=1)
    def test_over_quota_it_refuses_and_creates_nothing(self, server: McpServer, alice: User) -> None:
        scenario = make_scenario(server)
        run_start(scenario=scenario, user=alice)

        with pytest.raises(QuotaExceeded, match=r"Daily quota of 1 runs reached; it resets at 00:00 UTC \(in "):
            run_start(scenario=scenario, user=alice)

        assert Run.objects.count() == 1

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=3)
    def test_bulk_start_reports_queued_and_refused(self, server: McpServer, alice: User) -> None:
        scenarios = [make_scenario(server, name=f"S{i}") for i in range(5)]

        result = runs_start_many(scenarios=scenarios, user=alice)

        assert (len(result.queued), result.refused) == (3, 2)
        assert result.summary().startswith("Queued 3 runs. Refused 2: Daily quota of 3 runs reached")


@pytest.mark.django_db
class RunCancelTests:
    def test_a_queued_run_is_cancelled_at_once(self, server: McpServer, alice: User) -> None:
        run = run_start(scenario=make_scenario(server), user=alice)

        run = run_cancel(run=run)

        assert (run.status, run.stop_reason, run.cancel_requested) == ("cancelled", "cancelled", True)
        assert run.finished_at is not None

    def test_a_running_run_is_asked_to_stop(self, server: McpServer, alice: User) -> None:
        run = run_start(scenario=make_scenario(server), user=alice)
        Run.objects.filter(pk=run.pk).update(status=Run.Status.RUNNING)

        run = run_cancel(run=run)

        assert (run.status, run.cancel_requested) == ("running", True)
