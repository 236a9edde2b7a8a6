"""/api/v1/experiments with `variants`, and an experiment's tool use (GET /experiments/{id}/tools)."""

from __future__ import annotations

import pytest
from django.test import Client

from runs.models import Run
from tests.api.helpers import assert_error
from tests.runs.experiments.helpers import finish, tagged_scenarios

TERSE = {"name": "terse", "tools": {"get_weather": {"description": "Weather."}}, "rename": {"get_weather": "weather"}}


@pytest.mark.django_db
class ExperimentVariantsApiTests:
    def test_a_variant_makes_a_column_beside_each_model_and_its_trials_carry_it(self, writer_api: Client) -> None:
        tagged_scenarios(1)
        body = {"tag": "smoke", "models": [{"model": "evalhub-offline"}], "trials": 1, "variants": [TERSE]}

        response = writer_api.post("/api/v1/experiments", body, content_type="application/json")

        assert response.status_code == 201, response.content
        answer = response.json()
        assert [(m["model"], m["variant"]) for m in answer["models"]] == [
            ("evalhub-offline", ""),
            ("evalhub-offline", "terse"),
        ]
        assert answer["variants"] == [{**TERSE, "hide": []}]
        assert [cell["variant"] for cell in answer["cells"]] == ["", "terse"]
        runs = [Run.objects.get(pk=pk) for pk in answer["run_ids"]]
        assert [run.settings.get("variant") for run in runs] == [None, {**TERSE, "hide": []}]
        (compared,) = answer["variant_comparisons"]
        assert compared["variant"] == "terse" and [row["kind"] for row in compared["cells"]] == ["pending"]

        for run in runs:
            finish(run, passed=run.settings.get("variant") is None)
        again = writer_api.get(f"/api/v1/experiments/{answer['id']}").json()
        (compared,) = again["variant_comparisons"]
        assert compared["summary"].startswith("1 regressed, 0 fixed")
        assert compared["cells"][0]["model"] == "evalhub-offline · terse"

    def test_a_bad_variant_is_refused_naming_its_place(self, writer_api: Client) -> None:
        tagged_scenarios(1)
        body = {"tag": "smoke", "models": [{"model": "evalhub-offline"}], "variants": [{"name": "x", "hide": "all"}]}

        error = assert_error(
            writer_api.post("/api/v1/experiments", body, content_type="application/json"), 400, "VALIDATION_ERROR"
        )
        assert "variants[0].hide: expected a list of tool names" in str(error)
        assert not Run.objects.exists()

    def test_tools_gives_the_confusion_per_column_and_per_tool_figures(self, writer_api: Client) -> None:
        tagged_scenarios(1)
        body = {"tag": "smoke", "models": [{"model": "evalhub-offline"}], "trials": 1}
        answer = writer_api.post("/api/v1/experiments", body, content_type="application/json").json()
        (run,) = Run.objects.filter(pk__in=answer["run_ids"])
        calls = [{"toolName": "search_flights", "args": {}, "isError": True, "result": {}}]
        Run.objects.filter(pk=run.pk).update(all_tool_calls=calls)
        finish(run, passed=False)

        tools = writer_api.get(f"/api/v1/experiments/{answer['id']}/tools").json()

        (column,) = tools["columns"]
        assert column["cells"] == [
            {"expected": "get_weather", "called": "search_flights", "count": 1, "run_ids": [run.pk]}
        ]
        by_tool = {row["tool"]: row for row in tools["tools"]}
        assert by_tool["get_weather"]["failure_modes"] == {"wrong tool": 1}
        assert (by_tool["search_flights"]["calls"], by_tool["search_flights"]["error_rate"]) == (1, 1.0)
        assert tools["runs"] == 1
