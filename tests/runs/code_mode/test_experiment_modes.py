"""An experiment's tool-mode dimension: the same scenarios run with direct tool calls and in code mode."""

from __future__ import annotations

import pytest

from runs import pipeline
from runs.experiments.matrix import build_matrix
from runs.experiments.metrics import cells_refresh
from runs.experiments.services import experiment_start_requested
from runs.models import Run
from tests.runs.experiments.helpers import tagged_scenarios


@pytest.mark.django_db(transaction=True)
class ExperimentModesTests:
    def test_each_model_gets_a_column_per_mode_and_both_modes_pass_the_weather_scenario(self) -> None:
        (scenario,) = tagged_scenarios(1)
        scenario.expected_tools = ["get_weather"]
        scenario.save()

        experiment = experiment_start_requested(
            tag="smoke",
            models=[("evalhub-offline", None)],
            modes=["direct", "code"],
            trials=1,
            user=None,  # type: ignore[arg-type]
        )
        for run in Run.objects.filter(experiment=experiment).order_by("pk"):
            pipeline.execute_run(run.pk, worker="test-worker")
        cells = list(experiment.cells.order_by("column"))
        cells_refresh(cell_ids=[cell.pk for cell in cells])

        assert [(cell.column, cell.tool_mode) for cell in cells] == [(0, "direct"), (1, "code")]
        runs = {run.settings["tool_mode"]: run for run in Run.objects.filter(experiment=experiment)}
        assert runs["direct"].tool_calls[0]["toolName"] == "get_weather"
        assert runs["code"].tool_calls[0]["toolName"] == "run_code"
        assert runs["code"].all_tool_calls[1]["toolName"] == "get_weather"
        assert all(run.passed for run in runs.values())
        matrix = build_matrix(experiment, list(experiment.cells.all()))
        assert matrix.columns == ["evalhub-offline · direct", "evalhub-offline · code"]
        assert cells[0].key != cells[1].key
        assert [cell.model_label for cell in cells] == ["evalhub-offline · direct", "evalhub-offline · code"]
