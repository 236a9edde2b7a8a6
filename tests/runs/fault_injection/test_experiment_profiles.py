"""An experiment column per fault profile: one matrix says how each model copes with the same faults. Started through
the API, its trials executed by the worker's own task in this process (the offline model, the demo server)."""

from __future__ import annotations

import pytest
from django.test import Client

from runs.experiments.models import ExperimentCell
from runs.models import Run
from runs.tasks import execute_run
from tests.api.conftest import key_client
from tests.api.helpers import assert_error
from tests.base import make_bob
from tests.runs.experiments.helpers import tagged_scenarios

DOWN = {
    "faults": [{"name": "weather down", "tool": "get_weather", "kind": "error", "message": "Weather service down"}],
    # The offline model reports the error but never tries again: it tells the user, and never recovers.
    "recovery": {"require_told_user": True, "max_recovery_ms": 60000},
}
PROFILES = [{"name": "no faults", "fault_injection": {}}, {"name": "weather down", "fault_injection": DOWN}]


def writer() -> Client:
    return key_client(make_bob(), ["evaluate:read", "evaluate:write"])


@pytest.mark.django_db(transaction=True)
class FaultProfileColumnTests:
    def test_each_model_runs_once_per_profile_and_the_matrix_says_which(self) -> None:
        tagged_scenarios(1)
        api = writer()
        body = {"tag": "smoke", "models": [{"model": "evalhub-offline"}], "fault_profiles": PROFILES, "trials": 1}
        response = api.post("/api/v1/experiments", body, content_type="application/json")
        assert response.status_code == 201, response.content
        started = response.json()
        assert [(m["model"], m["fault_profile"]) for m in started["models"]] == [
            ("evalhub-offline", "no faults"),
            ("evalhub-offline", "weather down"),
        ]
        runs = [Run.objects.get(pk=pk) for pk in started["run_ids"]]
        assert [run.settings["fault_injection"] for run in runs] == [{}, DOWN]
        for run in runs:
            execute_run(run.pk)

        baseline, faulted = (Run.objects.get(pk=run.pk) for run in runs)
        assert baseline.verdict == "pass"
        assert not any("injectedFault" in call for call in baseline.all_tool_calls)
        assert {call["injectedFault"]["name"] for call in faulted.all_tool_calls} == {"weather down"}
        # The injected error blames nobody: the agent failed to recover.
        assert (faulted.verdict, faulted.failure_cause) == ("fail", "agent")
        recovery = faulted.score_results.get(scorer_name="Fault recovery")
        assert [(c["name"], c["passed"]) for c in recovery.details["checks"]] == [
            ("max_recovery_ms", False),
            ("require_told_user", True),
        ]
        cells = ExperimentCell.objects.filter(experiment_id=started["id"]).order_by("column")
        assert [(cell.model_label, cell.passes, cell.counted) for cell in cells] == [
            ("evalhub-offline · no faults", 1, 1),
            ("evalhub-offline · weather down", 0, 1),
        ]
        matrix = api.get(f"/api/v1/experiments/{started['id']}").json()
        assert [cell["fault_profile"] for cell in matrix["cells"]] == ["no faults", "weather down"]

    def test_a_bad_profile_is_refused_with_its_place(self) -> None:
        tagged_scenarios(1)
        profiles = [{"name": "melt", "fault_injection": {"faults": [{"kind": "melt"}]}}]
        body = {"tag": "smoke", "models": [{"model": "evalhub-offline"}], "fault_profiles": profiles}
        error = assert_error(
            writer().post("/api/v1/experiments", body, content_type="application/json"), 400, "VALIDATION_ERROR"
        )
        assert "fault_profiles[0].fault_injection.faults[0].kind: must be one of hang" in error["message"]
        assert Run.objects.count() == 0
