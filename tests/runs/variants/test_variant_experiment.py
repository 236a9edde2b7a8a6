"""A description the offline model's tool ranking depends on, rewritten in a variant: the cell goes from pass to
fail, the variant's comparison with the server as it is reports it regressed with its p-value, and the confusion
matrix shows why (the expected tool was no longer called)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from runs import pipeline
from runs.experiments.metrics import cells_refresh
from runs.experiments.services import experiment_start_requested
from runs.models import Run
from runs.tool_usage.confusion import NOT_CALLED
from runs.tool_usage.services import experiment_tool_usage
from runs.variants.compare import variant_comparisons
from tests.base import make_demo_server, make_scenario

# The offline model picks search_flights for this request from its description's words (departures, prices,
# seats left: 4 points, book_flight 2); "Lists flights." leaves it none, and no tool reaches the threshold.
PROMPT = "Which departures leave CDG for LHR on 2026-12-01? Show prices and seats left."
TERSE = {"name": "terse-search", "tools": {"search_flights": {"description": "Lists flights."}}}


@pytest.mark.django_db(transaction=True)
class VariantExperimentTests:
    def test_a_rewritten_description_regresses_the_cell_and_the_confusion_matrix_explains_it(
        self, alice: User, client: Client
    ) -> None:
        scenario = make_scenario(
            make_demo_server(), name="Departures", prompt=PROMPT, expected_tools=["search_flights"]
        )
        experiment = experiment_start_requested(
            scenario_ids=[scenario.pk], models=[("evalhub-offline", None)], trials=5, variants=[TERSE], user=alice
        )
        for run in Run.objects.filter(experiment=experiment).order_by("pk"):
            pipeline.execute_run(run.pk, worker="test-worker")
        cells_refresh(cell_ids=list(experiment.cells.values_list("pk", flat=True)))
        experiment.refresh_from_db()

        served, terse = experiment.cells.order_by("column")
        assert (served.variant, served.passes, served.counted) == ("", 5, 5)
        assert (terse.variant, terse.passes, terse.counted) == ("terse-search", 0, 5)
        (compared,) = variant_comparisons(experiment, [served, terse])
        (row,) = compared.comparison.rows
        assert (row.kind, round(row.p_value or 0, 4)) == ("regressed", 0.0079)
        assert compared.comparison.summary.startswith("1 regressed, 0 fixed, 0 unchanged")

        confusions, usage = experiment_tool_usage(experiment)
        by_column = {column.column: column.confusion.counts for column in confusions}
        assert by_column == {
            "evalhub-offline": {("search_flights", "search_flights"): 5},
            "evalhub-offline · terse-search": {("search_flights", NOT_CALLED): 5},
        }
        search = next(tool for tool in usage.tools if tool.name == "search_flights")
        assert (search.calls, search.errors, search.never_called) == (5, 0, 5)

        client.force_login(alice)
        page = client.get(reverse("experiments:variants", args=[experiment.pk])).content.decode()
        assert "1 regressed, 0 fixed, 0 unchanged" in page
        assert "5/5 → 0/5 · p 0.008" in page
        assert "First divergence" in page
        assert 'data-expected="search_flights" data-called="(not called)"><strong>5</strong>' in page
        assert (
            "\N{MINUS SIGN}</td><td><code>  Find the direct flights" in page
            and "+</td><td><code>  Lists flights.</code>" in page
        )
