"""/api/v1/experiments with `modes`: every model once per tool mode."""

from __future__ import annotations

import pytest
from django.test import Client

from runs.models import Run
from tests.api.helpers import assert_error
from tests.runs.experiments.helpers import tagged_scenarios


@pytest.mark.django_db
class ExperimentModesApiTests:
    def test_modes_make_a_column_per_model_and_mode(self, writer_api: Client) -> None:
        tagged_scenarios(1)
        body = {"tag": "smoke", "models": [{"model": "evalhub-offline"}], "modes": ["direct", "code"], "trials": 1}

        response = writer_api.post("/api/v1/experiments", body, content_type="application/json")

        assert response.status_code == 201, response.content
        answer = response.json()
        assert [(m["model"], m["tool_mode"]) for m in answer["models"]] == [
            ("evalhub-offline", "direct"),
            ("evalhub-offline", "code"),
        ]
        modes = [Run.objects.get(pk=pk).settings["tool_mode"] for pk in answer["run_ids"]]
        assert modes == ["direct", "code"]

    def test_an_unknown_mode_is_refused_with_where_it_is(self, writer_api: Client) -> None:
        tagged_scenarios(1)
        body = {"tag": "smoke", "models": [{"model": "evalhub-offline"}], "modes": ["python"]}

        error = assert_error(
            writer_api.post("/api/v1/experiments", body, content_type="application/json"), 400, "VALIDATION_ERROR"
        )
        assert "modes" in str(error) and "direct" in str(error)
