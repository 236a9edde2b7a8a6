"""GET /api/v1/runs?server=&sort=&order=, and the queue place of a queued run (API and run page)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client, override_settings
from django.utils import timezone

from evalhub.models import WorkerHeartbeat
from evalhub.servers.models import McpServer
from runs.models import Run
from runs.queue_estimate import wait_seconds
from tests.api.helpers import assert_error
from tests.api.records import finished_run
from tests.base import make_demo_server, make_scenario


def ids(client: Client, query: str) -> list[int]:
    response = client.get(f"/api/v1/runs?{query}")
    assert response.status_code == 200, response.content
    return [r["id"] for r in response.json()["items"]]


@pytest.mark.django_db
class RunSortTests:
    def test_it_filters_by_server(self, reader_api: Client) -> None:
        demo = make_demo_server()
        other = McpServer.objects.create(name="other", transport="http", url="http://127.0.0.1:9/mcp")
        mine = finished_run(make_scenario(demo), score=1.0, passed=True)
        theirs = finished_run(make_scenario(other, name="other scenario"), score=1.0, passed=True)

        assert ids(reader_api, f"server={demo.pk}") == [mine.pk]
        assert ids(reader_api, f"server={other.pk}") == [theirs.pk]
        assert ids(reader_api, "server=999999") == []

    def test_it_sorts_by_score_duration_and_cost_with_unknowns_last(self, reader_api: Client) -> None:
        scenario = make_scenario(make_demo_server())
        low = finished_run(scenario, score=0.2, passed=False, duration_ms=300, cost_usd=Decimal("0.5"))
        high = finished_run(scenario, score=0.9, passed=True, duration_ms=100, cost_usd=None)
        none = finished_run(scenario, score=None, passed=None, duration_ms=200, cost_usd=Decimal("0.1"))

        assert ids(reader_api, "sort=score&order=desc") == [high.pk, low.pk, none.pk]
        assert ids(reader_api, "sort=score&order=asc") == [low.pk, high.pk, none.pk]
        assert ids(reader_api, "sort=duration&order=asc") == [high.pk, none.pk, low.pk]
        assert ids(reader_api, "sort=cost&order=desc") == [low.pk, none.pk, high.pk]
        assert ids(reader_api, "sort=cost&order=asc") == [none.pk, low.pk, high.pk]

    def test_it_sorts_by_creation_both_ways(self, reader_api: Client) -> None:
        scenario = make_scenario(make_demo_server())
        first = finished_run(scenario, score=1.0, passed=True)
        second = finished_run(scenario, score=1.0, passed=True)
        Run.objects.filter(pk=first.pk).update(created_at=timezone.now() - timedelta(hours=1))

        assert ids(reader_api, "") == [second.pk, first.pk]
        assert ids(reader_api, "sort=created_at&order=asc") == [first.pk, second.pk]

    def test_bad_sort_or_order_names_the_parameter_and_the_allowed_values(self, reader_api: Client) -> None:
        error = assert_error(reader_api.get("/api/v1/runs?sort=name"), 400, "VALIDATION_ERROR")
        assert "sort" in error["message"]
        for allowed in ("created_at", "score", "duration", "cost"):
            assert allowed in error["message"]
        error = assert_error(reader_api.get("/api/v1/runs?order=up"), 400, "VALIDATION_ERROR")
        assert "order" in error["message"] and "asc" in error["message"] and "desc" in error["message"]
        assert_error(reader_api.get("/api/v1/runs?server=abc"), 400, "VALIDATION_ERROR")


class WaitSecondsTests:
    def test_a_free_slot_means_no_wait(self) -> None:
        assert wait_seconds(ahead=2, running=1, slots=4, typical_ms=10_000) == 0

    def test_it_waits_in_waves_of_slots(self) -> None:
        # 2 running + 3 ahead on 2 slots: 4 must end first, 2 waves of 10 s.
        assert wait_seconds(ahead=3, running=2, slots=2, typical_ms=10_000) == 20
        assert wait_seconds(ahead=0, running=2, slots=2, typical_ms=10_000) == 10


@pytest.mark.django_db
class QueuePositionTests:
    @override_settings(EVALHUB_WORKER_CONCURRENCY=1)
    def test_queued_runs_show_their_place_and_estimated_start(self, reader_api: Client) -> None:
        scenario = make_scenario(make_demo_server())
        WorkerHeartbeat.record("celery@box")
        finished_run(scenario, score=1.0, passed=True, duration_ms=60_000)
        Run.objects.create(scenario=scenario, model="m", status=Run.Status.RUNNING)
        first = Run.objects.create(scenario=scenario, model="m")
        second = Run.objects.create(scenario=scenario, model="m")
        before = timezone.now()

        body = reader_api.get(f"/api/v1/runs/{second.pk}").json()

        assert body["queue"]["position"] == 2
        # One slot, one running and one ahead: two runs of 60 s end first.
        start = timezone.datetime.fromisoformat(body["queue"]["estimated_start"])
        assert timedelta(seconds=119) <= start - before <= timedelta(seconds=125)
        assert "median" in body["queue"]["basis"]
        listed = {r["id"]: r["queue"] for r in reader_api.get("/api/v1/runs").json()["items"]}
        assert listed[first.pk]["position"] == 1
        assert listed[second.pk]["position"] == 2
        assert all(queue is None for run_id, queue in listed.items() if run_id not in (first.pk, second.pk))

    def test_with_no_finished_run_the_start_is_unknown(self, reader_api: Client) -> None:
        run = Run.objects.create(scenario=make_scenario(make_demo_server()), model="m")

        body = reader_api.get(f"/api/v1/runs/{run.pk}").json()

        assert body["queue"]["position"] == 1
        assert body["queue"]["estimated_start"] is None

    def test_the_run_page_shows_the_place(self, alice_client: Client) -> None:
        scenario = make_scenario(make_demo_server())
        Run.objects.create(scenario=scenario, model="m")
        run = Run.objects.create(scenario=scenario, model="m")

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert 'id="queue-position">2<' in html
        assert "unknown until a run has finished" in html
        done = finished_run(scenario, score=1.0, passed=True)
        assert 'id="queue-position"' not in alice_client.get(f"/runs/{done.pk}/").content.decode()
