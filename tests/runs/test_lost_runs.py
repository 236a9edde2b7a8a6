"""Runs whose worker was lost: closed with a sentence naming the phase, their quota slot spent, offered Run again,
and shown as lost (never "running") by the scenario pages and /metrics, even when no worker is alive."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.utils import timezone

from evalhub.scenarios.models import Scenario
from runs.heartbeat import STALE_AFTER, lost_error, runs_reap_orphans, runs_reap_stale
from runs.models import Run
from runs.quota import quota_status
from runs.services import run_start
from tests.base import make_demo_server, make_scenario

LOST_MESSAGE = (
    "worker lost: its worker celery@box was restarted during “tool call book_flight”. The run used one of today's "
    "quota runs and is not retried automatically, because its tool calls may already have had effects; use Run "
    "again to start a new run."
)


@pytest.fixture
def scenario(db: None) -> Scenario:
    return make_scenario(make_demo_server())


def running(scenario: Scenario, *, beat: datetime, worker: str = "celery@box", phase: str = "connect") -> Run:
    return Run.objects.create(
        scenario=scenario,
        model="evalhub-offline",
        status=Run.Status.RUNNING,
        started_at=beat,
        heartbeat_at=beat,
        worker=worker,
        phase=phase,
    )


def silent() -> datetime:
    return timezone.now() - STALE_AFTER - timedelta(seconds=1)


@pytest.mark.django_db
class ReapTests:
    def test_a_restarted_worker_closes_only_the_runs_it_claimed_before_it_started(self, scenario: Scenario) -> None:
        started_at = timezone.now()
        before = started_at - timedelta(seconds=5)
        orphan = running(scenario, beat=before, phase="tool call book_flight")
        other_worker = running(scenario, beat=before, worker="celery@other")
        claimed_since = running(scenario, beat=started_at + timedelta(seconds=1))

        assert runs_reap_orphans(worker="celery@box", started_at=started_at) == 1

        orphan.refresh_from_db()
        assert (orphan.status, orphan.stop_reason, orphan.passed) == ("error", "error", None)
        assert (orphan.verdict, orphan.failure_cause) == ("inconclusive", "harness")
        assert orphan.error == {"step": "tool call book_flight", "kind": "worker_lost", "message": LOST_MESSAGE}
        assert orphan.error == lost_error("tool call book_flight", "its worker celery@box was restarted")
        statuses = Run.objects.filter(pk__in=[other_worker.pk, claimed_since.pk]).values_list("status", flat=True)
        assert list(statuses) == ["running", "running"]

    def test_a_silent_run_is_closed_naming_its_last_heartbeat_and_a_beating_one_is_not(
        self, scenario: Scenario
    ) -> None:
        beat = datetime(2025, 3, 1, 9, 30, 5, tzinfo=UTC)
        lost = running(scenario, beat=beat, phase="")
        alive = running(scenario, beat=beat + timedelta(seconds=30))

        assert runs_reap_stale(now=beat + STALE_AFTER + timedelta(seconds=1)) == 1

        lost.refresh_from_db()
        assert lost.error == {
            "step": "worker",
            "kind": "worker_lost",
            "message": (
                "worker lost: its worker stopped (no heartbeat since 09:30:05 UTC) during “start”. The run used one "
                "of today's quota runs and is not retried automatically, because its tool calls may already have "
                "had effects; use Run again to start a new run."
            ),
        }
        assert Run.objects.get(pk=alive.pk).status == "running"

    def test_a_run_that_ended_is_never_written_again(self, scenario: Scenario) -> None:
        run = running(scenario, beat=timezone.now())
        Run.objects.filter(pk=run.pk).update(status=Run.Status.ERROR, error=lost_error("score", "gone"))

        run.status, run.score = Run.Status.DONE, 1.0

        assert run.save_if_running(["status", "score"]) is False
        assert Run.objects.values_list("status", "score").get(pk=run.pk) == ("error", None)


@pytest.mark.django_db
class LostRunPageTests:
    def test_the_run_page_says_the_quota_slot_was_used_and_offers_run_again(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        run = run_start(scenario=scenario, user=None)
        claimed = timezone.now()
        Run.objects.filter(pk=run.pk).update(
            status=Run.Status.RUNNING, started_at=claimed, worker="celery@box", phase="tool call book_flight"
        )
        runs_reap_orphans(worker="celery@box", started_at=claimed + timedelta(seconds=1))

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert LOST_MESSAGE.replace("'", "&#x27;") in html
        alert = html[html.index('role="alert"') : html.index("</div>", html.index('role="alert"'))]
        assert f'action="/scenarios/{scenario.pk}/run/"' in alert and ">Run again</button>" in alert
        assert 'name="csrfmiddlewaretoken"' in alert
        assert quota_status().used == 1 and Run.objects.count() == 1  # spent, and nothing re-run by itself

    def test_run_again_starts_a_new_run_on_a_new_quota_slot(self, alice_client: Client, scenario: Scenario) -> None:
        lost = run_start(scenario=scenario, user=None)
        Run.objects.filter(pk=lost.pk).update(status=Run.Status.ERROR, error=lost_error("score", "gone"))

        response = alice_client.post(f"/scenarios/{scenario.pk}/run/")

        again = Run.objects.exclude(pk=lost.pk).get()
        assert response.headers["Location"] == f"/runs/{again.pk}/"
        assert (again.status, quota_status().used) == ("queued", 2)
        assert Run.objects.get(pk=lost.pk).status == "error"


@pytest.mark.django_db
class NoDeadRunShownRunningTests:
    def test_the_scenario_page_shows_a_dead_workers_run_as_an_error(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        run = running(scenario, beat=silent())

        html = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()

        assert Run.objects.get(pk=run.pk).status == "error"
        assert "running" not in html.lower()

    def test_the_scenario_list_shows_its_last_run_as_inconclusive(
        self, alice_client: Client, scenario: Scenario
    ) -> None:
        running(scenario, beat=silent())

        html = alice_client.get("/scenarios/").content.decode()

        # A lost worker decides nothing: never "running" again, never a red fail.
        assert (
            "running" not in html.lower()
            and '<span class="verdict-main">inconclusive</span> <span class="verdict-cause">· harness</span>' in html
            and "badge-fail" not in html
        )

    def test_metrics_count_it_as_an_error(self, alice_client: Client, scenario: Scenario) -> None:
        running(scenario, beat=silent())

        by_status = alice_client.get("/api/v1/metrics").json()["runs"]["by_status"]
        prometheus = alice_client.get("/api/v1/metrics/prometheus").content.decode()

        assert (by_status["running"], by_status["error"]) == (0, 1)
        assert 'evalhub_runs{window="24h",status="running"} 0' in prometheus
