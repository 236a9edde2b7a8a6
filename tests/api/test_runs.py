"""/api/v1/runs: bulk start, list with the Runs page's filters, full record, cancel."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.utils import timezone

from evalhub.scenarios.models import Tag
from runs.models import Run
from runs.verdict import CAUSES
from tests.api.helpers import assert_error
from tests.api.records import finished_run
from tests.base import make_demo_server, make_scenario


def post(client: Client, data: Any) -> Any:
    return client.post("/api/v1/runs", data, content_type="application/json")


@pytest.mark.django_db
class BulkStartTests:
    def test_it_starts_every_scenario_of_a_tag(self, writer_api: Client) -> None:
        server = make_demo_server()
        smoke = Tag.objects.create(name="smoke")
        for name in ("A", "B"):
            make_scenario(server, name=name).tags.add(smoke)
        make_scenario(server, name="C")

        response = post(writer_api, {"tag": "smoke"})

        assert response.status_code == 201, response.content
        body = response.json()
        assert (body["queued"], body["refused"], body["refusal"]) == (2, 0, "")
        assert [r["scenario_name"] for r in body["runs"]] == ["A", "B"]
        assert Run.objects.filter(status="queued").count() == 2

    def test_it_starts_scenarios_by_id_with_a_model_override(self, writer_api: Client) -> None:
        scenario = make_scenario(make_demo_server())

        body = post(writer_api, {"scenario_ids": [scenario.pk], "model": "evalhub-offline"}).json()

        assert body["queued"] == 1
        assert body["runs"][0]["model"] == "evalhub-offline"

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=2)
    def test_it_reports_runs_refused_by_the_quota(self, writer_api: Client) -> None:
        server = make_demo_server()
        ids = [make_scenario(server, name=f"S{n}").pk for n in range(3)]

        body = post(writer_api, {"scenario_ids": ids}).json()

        assert (body["queued"], body["refused"]) == (2, 1)
        assert "Daily quota of 2 runs reached" in body["refusal"]

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=0)
    def test_it_answers_429_when_nothing_could_be_queued(self, writer_api: Client) -> None:
        scenario = make_scenario(make_demo_server())

        error = assert_error(post(writer_api, {"scenario_ids": [scenario.pk]}), 429, "QUOTA_EXCEEDED")

        assert (error["details"]["queued"], error["details"]["refused"]) == (0, 1)

    def test_it_needs_ids_or_a_tag(self, writer_api: Client) -> None:
        assert_error(post(writer_api, {}), 400, "VALIDATION_ERROR")
        assert_error(post(writer_api, {"tag": "none-has-it"}), 400, "VALIDATION_ERROR")

    def test_unknown_ids_are_404_and_start_nothing(self, writer_api: Client) -> None:
        scenario = make_scenario(make_demo_server())

        error = assert_error(post(writer_api, {"scenario_ids": [scenario.pk, 9999]}), 404, "RESOURCE_NOT_FOUND")

        assert error["details"]["missing_ids"] == [9999]
        assert not Run.objects.exists()

    def test_a_model_the_provider_does_not_serve_is_refused(self, writer_api: Client) -> None:
        scenario = make_scenario(make_demo_server())

        assert_error(post(writer_api, {"scenario_ids": [scenario.pk], "model": "gpt-9"}), 400, "VALIDATION_ERROR")


@pytest.mark.django_db
class RunListTests:
    def test_it_lists_newest_first_with_totals(self, reader_api: Client) -> None:
        scenario = make_scenario(make_demo_server())
        runs = [finished_run(scenario, score=1.0, passed=True) for _ in range(3)]

        page = reader_api.get("/api/v1/runs?limit=2").json()

        assert page["total"] == 3
        assert [r["id"] for r in page["items"]] == [runs[2].pk, runs[1].pk]
        assert page["items"][0]["tool_names"] == ["get_weather"]
        assert page["items"][0]["cost_usd"] == 0.0012

    def test_it_filters_like_the_runs_page(self, reader_api: Client) -> None:
        server = make_demo_server()
        a, b = make_scenario(server, name="A"), make_scenario(server, name="B")
        b.tags.create(name="smoke")
        passed = finished_run(a, score=1.0, passed=True)
        failed = finished_run(b, score=0.0, passed=False)
        old = finished_run(a, score=1.0, passed=True)
        Run.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=10))

        def ids(query: str) -> list[int]:
            return [r["id"] for r in reader_api.get(f"/api/v1/runs?{query}").json()["items"]]

        assert ids("passed=false") == [failed.pk]
        assert ids(f"scenario={a.pk}") == [passed.pk, old.pk]
        assert ids("tag=smoke") == [failed.pk]
        assert ids("status=done&model=evalhub-offline") == [failed.pk, passed.pk, old.pk]
        since = (timezone.now() - timedelta(days=1)).date().isoformat()
        assert ids(f"date_from={since}") == [failed.pk, passed.pk]
        assert ids(f"ids={old.pk}&ids={failed.pk}") == [failed.pk, old.pk]

    def test_it_filters_by_verdict_and_cause(self, reader_api: Client) -> None:
        scenario = make_scenario(make_demo_server())
        passed = finished_run(scenario, score=1.0, passed=True)
        agent = finished_run(scenario, score=0.0, passed=False)
        outage = finished_run(
            scenario, score=None, passed=None, verdict="inconclusive", failure_cause="provider", failure_reason="x"
        )

        def ids(query: str) -> list[int]:
            return [r["id"] for r in reader_api.get(f"/api/v1/runs?{query}").json()["items"]]

        assert ids("verdict=pass") == [passed.pk]
        assert ids("verdict=inconclusive") == [outage.pk]
        assert ids("cause=agent") == [agent.pk]
        assert reader_api.get(f"/api/v1/runs/{outage.pk}").json()["verdict"] == "inconclusive"
        # The API takes every cause the rule gives.
        assert {reader_api.get(f"/api/v1/runs?cause={cause}").status_code for cause in CAUSES} == {200}

    def test_a_bad_filter_is_a_validation_error(self, reader_api: Client) -> None:
        assert_error(reader_api.get("/api/v1/runs?status=exploded"), 400, "VALIDATION_ERROR")
        assert_error(reader_api.get("/api/v1/runs?verdict=maybe"), 400, "VALIDATION_ERROR")
        assert_error(reader_api.get("/api/v1/runs?date_from=yesterday"), 400, "VALIDATION_ERROR")


@pytest.mark.django_db
class RunDetailTests:
    def test_it_returns_the_full_record(self, reader_api: Client) -> None:
        run = finished_run(make_scenario(make_demo_server()), score=1.0, passed=True)

        body = reader_api.get(f"/api/v1/runs/{run.pk}").json()

        assert body["transcript"]["finalText"] == "It is sunny."
        assert body["tool_calls"][0]["toolName"] == "get_weather"
        assert body["scores"][0]["scorer_name"] == "Default scorer"
        assert (body["stop_reason"], body["cost_usd"], body["passed"]) == ("completed", 0.0012, True)

    def test_a_missing_run_is_404(self, reader_api: Client) -> None:
        assert_error(reader_api.get("/api/v1/runs/31337"), 404, "RESOURCE_NOT_FOUND")


@pytest.mark.django_db
class RunCancelTests:
    def test_it_cancels_a_queued_run(self, writer_api: Client, bob: User) -> None:
        run = Run.objects.create(scenario=make_scenario(make_demo_server()), model="evalhub-offline", started_by=bob)

        body = writer_api.delete(f"/api/v1/runs/{run.pk}").json()

        assert (body["status"], body["stop_reason"]) == ("cancelled", "cancelled")

    def test_a_running_run_is_asked_to_stop(self, writer_api: Client, bob: User) -> None:
        run = Run.objects.create(
            scenario=make_scenario(make_demo_server()),
            model="m",
            status="running",
            heartbeat_at=timezone.now(),
            started_by=bob,
        )

        body = writer_api.delete(f"/api/v1/runs/{run.pk}").json()

        assert (body["status"], body["cancel_requested"]) == ("running", True)

    def test_a_finished_run_stays_as_it_was(self, writer_api: Client, bob: User) -> None:
        run = finished_run(make_scenario(make_demo_server()), score=1.0, passed=True, started_by=bob)

        assert writer_api.delete(f"/api/v1/runs/{run.pk}").json()["status"] == "done"

    def test_it_requires_the_write_scope(self, reader_api: Client) -> None:
        run = Run.objects.create(scenario=make_scenario(make_demo_server()), model="m")

        assert_error(reader_api.delete(f"/api/v1/runs/{run.pk}"), 403, "INSUFFICIENT_PERMISSIONS")
        run.refresh_from_db()
        assert run.status == "queued"


@pytest.mark.django_db
class SnapshotModeTests:
    def test_the_runs_api_takes_the_mode(self, alice: User, writer_api: Client) -> None:
        from tests.runs.test_snapshots import weather_scenario

        scenario = weather_scenario(alice)
        body = {"scenario_ids": [scenario.pk], "snapshots": "ci", "acknowledge_side_effects": True}

        response = writer_api.post("/api/v1/runs", body, content_type="application/json")

        assert response.status_code == 201, response.content
        assert Run.objects.get().settings["snapshots"] == "ci"
        bad = writer_api.post("/api/v1/runs", body | {"snapshots": "always"}, content_type="application/json")
        assert bad.status_code == 400
