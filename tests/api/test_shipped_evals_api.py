"""The API side of shipped evals: starting execution-level runs needs acknowledge_side_effects, and the runs and
experiment reports give EvalResult objects in the evals/list proposal's shape."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.demo_server.evals import EVALS, PARIS_WEATHER_CONTENT
from evalhub.server_evals.services import shipped_evals_sync
from evalhub.servers.services import server_inspect
from runs import pipeline
from runs.models import Run
from tests.api.helpers import assert_error
from tests.base import make_demo_server

EXECUTION_IDS = [item["id"] for item in EVALS if item["input"]["type"] == "execution"]


@pytest.fixture
def demo_evals(alice: User) -> int:
    """The demo server, inspected, with every shipped eval imported; its id."""
    server = make_demo_server()
    server_inspect(server=server)
    shipped_evals_sync(server=server, user=alice)
    return server.pk


@pytest.mark.django_db(transaction=True)
class SideEffectsApiTests:
    def test_execution_runs_need_the_acknowledgment_of_staff_which_is_then_recorded(
        self, writer_api: Client, admin_api: Client, alice: User, demo_evals: int
    ) -> None:
        started = writer_api.post("/api/v1/runs", {"tag": "execution"}, content_type="application/json")

        error = assert_error(started, 409, "CONFLICT")
        assert "Acknowledge that on the server's page first" in error["message"]
        assert error["message"].endswith("; staff can.")  # the demo server is a stdio server: staff's
        assert error["details"]["server_id"] == demo_evals
        assert not Run.objects.exists()

        # bob is not staff: his acknowledgment is refused, saying who may give it.
        not_his = writer_api.post(
            "/api/v1/runs", {"tag": "execution", "acknowledge_side_effects": True}, content_type="application/json"
        )
        assert assert_error(not_his, 403, "INSUFFICIENT_PERMISSIONS")["message"] == (
            "Only staff can allow the tools of “Demo travel server” to be called for real."
        )
        assert not Run.objects.exists()

        started = admin_api.post(
            "/api/v1/runs", {"tag": "execution", "acknowledge_side_effects": True}, content_type="application/json"
        )

        assert started.status_code == 201, started.content
        assert started.json()["queued"] == len(EXECUTION_IDS)
        server = Run.objects.first().server  # type: ignore[union-attr]
        assert server is not None and server.side_effects_acknowledged_by == alice


@pytest.mark.django_db(transaction=True)
class EvalResultReportTests:
    def test_the_runs_report_gives_one_eval_result_per_shipped_eval_run(
        self, writer_api: Client, admin_api: Client, demo_evals: int
    ) -> None:
        admin_api.post(f"/api/v1/servers/{demo_evals}/side-effects/acknowledge")
        started = writer_api.post(
            "/api/v1/runs", {"tag": "server-evals", "acknowledge_side_effects": True}, content_type="application/json"
        )
        for run in Run.objects.all():
            pipeline.execute_run(run.pk, worker="test-worker")

        response = writer_api.get("/api/v1/runs/report?format=evalresult")

        assert started.json()["queued"] == len(EVALS) and response.status_code == 200
        assert response["Content-Type"] == "application/json"
        results = {result["evalId"]: result for result in json.loads(response.content)}
        assert set(results) == {item["id"] for item in EVALS}
        for result in results.values():
            assert set(result) <= {"evalId", "passed", "reason", "durationMs"}
            assert isinstance(result["durationMs"], int) and result["durationMs"] > 0
        assert results["paris-weather-is-stable"]["passed"] is True
        assert results["weather-picks-get-weather"]["passed"] is True
        # The offline model cannot judge: a judge eval is not passed, and says why.
        assert results["weekend-in-paris"] == results["weekend-in-paris"] | {"passed": False}
        assert "skipped" in results["weekend-in-paris"]["reason"]


@pytest.mark.django_db
class ShippedEvalsEndpointTests:
    def test_list_then_import_some_then_list_shows_the_link(self, writer_api: Client) -> None:
        server = make_demo_server()
        server_inspect(server=server)

        listed = writer_api.get(f"/api/v1/servers/{server.pk}/evals").json()
        assert listed["capability"] == {"listChanged": False}
        assert [item["id"] for item in listed["evals"]] == [item["id"] for item in EVALS]
        assert {item["scenario_id"] for item in listed["evals"]} == {None}

        synced = writer_api.post(
            f"/api/v1/servers/{server.pk}/evals/sync",
            {"import_ids": ["paris-weather-is-stable"]},
            content_type="application/json",
        )
        assert synced.status_code == 200, synced.content
        assert (
            synced.json()["added"] == ["paris-weather-is-stable"]
            and synced.json()["summary"] == "1 imported, 4 not imported (tick them to import)"
        )

        linked = {
            item["id"]: item["scenario_id"]
            for item in writer_api.get(f"/api/v1/servers/{server.pk}/evals").json()["evals"]
        }
        assert linked["paris-weather-is-stable"] is not None and linked["weekend-in-paris"] is None
        scenario = writer_api.get(f"/api/v1/scenarios/{linked['paris-weather-is-stable']}").json()
        assert (scenario["level"], scenario["shipped_eval_id"]) == ("execution", "paris-weather-is-stable")
        assert scenario["tool_call"] == {"tool": "get_weather", "arguments": {"latitude": 49.01, "longitude": 2.55}}

    def test_an_unknown_eval_and_an_uninspected_server_are_refused(self, writer_api: Client) -> None:
        server = make_demo_server()

        not_inspected = writer_api.post(f"/api/v1/servers/{server.pk}/evals/sync", {}, content_type="application/json")
        assert "Inspect “Demo travel server” first" in assert_error(not_inspected, 409, "CONFLICT")["message"]

        server_inspect(server=server)
        unknown = writer_api.post(
            f"/api/v1/servers/{server.pk}/evals/sync", {"import_ids": ["nope"]}, content_type="application/json"
        )
        assert "does not ship 'nope'" in assert_error(unknown, 400, "VALIDATION_ERROR")["message"]

    def test_a_reader_cannot_import(self, reader_api: Client) -> None:
        server = make_demo_server()

        refused = reader_api.post(f"/api/v1/servers/{server.pk}/evals/sync", {}, content_type="application/json")

        assert refused.status_code == 403


@pytest.mark.django_db
class ToolTestApiTests:
    def test_a_tool_is_called_directly_with_its_result_duration_and_validation(self, writer_api: Client) -> None:
        server = make_demo_server()

        answer = writer_api.post(
            "/api/v1/tools/test",
            {"server_id": server.pk, "tool": "get_weather", "arguments": {"latitude": 49.01, "longitude": 2.55}},
            content_type="application/json",
        )

        assert answer.status_code == 200, answer.content
        body = answer.json()
        assert body["result"]["content"] == PARIS_WEATHER_CONTENT
        assert body["is_error"] is False and body["schema_validation"]["valid"] is True
        assert isinstance(body["duration_ms"], int)

    def test_a_failing_tool_is_a_result_and_an_unknown_one_a_400_listing_the_tools(
        self, writer_api: Client, admin_api: Client
    ) -> None:
        server = make_demo_server()
        cancel = {"server_id": server.pk, "tool": "cancel_booking", "arguments": {"booking_reference": "ABC123"}}
        unacknowledged = writer_api.post("/api/v1/tools/test", cancel, content_type="application/json")
        assert "'cancel_booking' looks destructive" in assert_error(unacknowledged, 409, "CONFLICT")["message"]
        assert unacknowledged.json()["error"]["details"]["acknowledge_with"] == (
            f"POST /api/v1/servers/{server.pk}/side-effects/acknowledge"
        )
        assert writer_api.post(f"/api/v1/servers/{server.pk}/side-effects/acknowledge").status_code == 403
        admin_api.post(f"/api/v1/servers/{server.pk}/side-effects/acknowledge")

        failing = writer_api.post(
            "/api/v1/tools/test",
            {"server_id": server.pk, "tool": "cancel_booking", "arguments": {"booking_reference": "ABC123"}},
            content_type="application/json",
        )
        unknown = writer_api.post(
            "/api/v1/tools/test", {"server_id": server.pk, "tool": "fly"}, content_type="application/json"
        )

        assert failing.status_code == 200 and failing.json()["is_error"] is True
        message = assert_error(unknown, 400, "VALIDATION_ERROR")["message"]
        assert message == (
            "“Demo travel server” has no tool 'fly'; its tools: book_flight, cancel_booking, get_weather, "
            "search_flights, wait."
        )
