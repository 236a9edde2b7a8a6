"""Suggest a variant from a cell's failed trials — with a scripted generation model, and the template without
one — then run it in one click and read the verdict: the rewritten description fixes the cell."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from evalhub.providers.models import SiteSettings
from runs import pipeline
from runs.experiments.metrics import cells_refresh
from runs.experiments.models import Experiment, ExperimentCell
from runs.experiments.services import experiment_start_requested
from runs.models import Run
from runs.variants.compare import variant_comparisons
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion

# The offline model finds 2 points for search_flights here (departures, prices): below its threshold of 3, so
# it calls nothing and the trial fails; "leave" in the description makes it 3.
PROMPT = "Which departures leave CDG for LHR on 2026-12-01, at what prices?"
REWRITTEN = "Lists the departures that leave one airport for another on a day, with their prices."


def execute(experiment: Experiment) -> list[ExperimentCell]:
    for run in Run.objects.filter(experiment=experiment).order_by("pk"):
        pipeline.execute_run(run.pk, worker="test-worker")
    cells = list(experiment.cells.order_by("column"))
    cells_refresh(cell_ids=[cell.pk for cell in cells])
    return list(experiment.cells.order_by("column"))


def failing_cell(alice: User) -> ExperimentCell:
    scenario = make_scenario(make_demo_server(), name="Departures", prompt=PROMPT, expected_tools=["search_flights"])
    experiment = experiment_start_requested(
        scenario_ids=[scenario.pk], models=[("evalhub-offline", None)], trials=1, user=alice
    )
    (cell,) = execute(experiment)
    assert (cell.passes, cell.counted) == (0, 1)
    return cell


@pytest.mark.django_db(transaction=True)
class SuggestTests:
    def test_the_generation_model_learns_from_the_failed_trials_and_its_variant_fixes_the_cell(
        self, alice: User, client: Client, scripted: ScriptedServer
    ) -> None:
        cell = failing_cell(alice)
        SiteSettings.objects.update_or_create(
            pk=1,
            defaults={"generation_provider": make_scripted_provider(scripted.base_url), "generation_model": "gpt-4o"},
        )
        answer = {"tools": {"search_flights": {"description": REWRITTEN}}, "why": "Name what it lists."}
        scripted.script(Answer(body=completion(content=f"```json\n{json.dumps(answer)}\n```")))
        client.force_login(alice)

        page = client.get(reverse("experiments:cell_suggest", args=[cell.pk])).content.decode()
        assert "The failed trials it learns from" in page and "called no tool" in page
        assert not scripted.received  # nothing is asked before the user asks

        page = client.post(reverse("experiments:cell_suggest", args=[cell.pk])).content.decode()

        (asked,) = scripted.received
        prompt = asked.json["messages"][1]["content"]
        assert f"The request: {PROMPT}" in prompt and "Expected tools: search_flights" in prompt
        assert "- called no tool" in prompt and "- search_flights: Find the direct flights" in prompt
        assert "Suggested by gpt-4o: Name what it lists." in page
        assert f"+</td><td><code>  {REWRITTEN}</code>" in page
        assert "\N{MINUS SIGN}</td><td><code>  Find the direct flights" in page

        response = client.post(
            reverse("experiments:cell_run_variant", args=[cell.pk]),
            {"variant": json.dumps({"name": "leave", "tools": {"search_flights": {"description": REWRITTEN}}})},
        )

        rerun = Experiment.objects.exclude(pk=cell.experiment_id).get()
        assert response.status_code == 302 and response["Location"] == reverse("experiments:variants", args=[rerun.pk])
        assert rerun.variant_list == [
            {"name": "leave", "tools": {"search_flights": {"description": REWRITTEN}}, "hide": [], "rename": {}}
        ]
        served, variant = execute(rerun)
        assert (served.passes, variant.passes) == (0, 1)
        (compared,) = variant_comparisons(rerun, [served, variant])
        assert [row.kind for row in compared.comparison.rows] == ["fixed"]

    def test_without_a_generation_model_the_template_adds_the_request_to_the_missed_tool(
        self, alice: User, client: Client
    ) -> None:
        cell = failing_cell(alice)
        client.force_login(alice)

        page = client.post(reverse("experiments:cell_suggest", args=[cell.pk])).content.decode()

        assert "No generation model is chosen in Settings, so this is a template" in page
        assert (
            "Use it for requests such as: “Which departures leave CDG for LHR on 2026-12-01, at what prices?”" in page
        )

    def test_an_invalid_edit_is_refused_naming_the_place_and_nothing_runs(self, alice: User, client: Client) -> None:
        cell = failing_cell(alice)
        client.force_login(alice)
        bad = json.dumps({"name": "x", "tools": {"search_flight": {"description": "typo"}}})

        response = client.post(reverse("experiments:cell_run_variant", args=[cell.pk]), {"variant": bad})

        assert response.status_code == 400
        assert "variant.tools.search_flight: the server has no such tool" in response.content.decode()
        assert Experiment.objects.count() == 1
