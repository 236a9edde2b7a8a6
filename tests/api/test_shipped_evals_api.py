"""The API side of shipped evals: starting execution-level runs needs acknowledge_side_effects, and the runs and
experiment reports give EvalResult objects in the evals/list proposal's shape."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.demo_server.evals import EVALS
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
    def test_execution_runs_need_the_acknowledgment_which_is_then_recorded(
        self, writer_api: Client, bob: User, demo_evals: int
    ) -> None:
        started = writer_api.post("/api/v1/runs", {"tag": "execution"}, content_type="application/json")

        error = assert_error(started, 409, "CONFLICT")
        assert "Acknowledge that on the server's page first" in error["message"]
        assert error["details"]["server_id"] == demo_evals
        assert not Run.objects.exists()

        started = writer_api.post(
            "/api/v1/runs", {"tag": "execution", "acknowledge_side_effects": True}, content_type="application/json"
        )

        assert started.status_code == 201, started.content
        assert started.json()["queued"] == len(EXECUTION_IDS)
        server = Run.objects.first().server  # type: ignore[union-attr]
        assert server is not None and server.side_effects_acknowledged_by == bob


@pytest.mark.django_db(transaction=True)
class EvalResultReportTests:
    def test_the_runs_report_gives_one_eval_result_per_shipped_eval_run(
        self, writer_api: Client, demo_evals: int
    ) -> None:
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
