"""A run's "Save as expectations": proposals from what a multi-step run did, pruned, saved onto its scenario, and
the run re-scored with them passes."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils.html import escape

from runs import pipeline
from runs.models import Run
from runs.services import run_start
from runs.tasks import rescore_runs
from scorers.expectations import describe
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call

WEATHER = {"kind": "tool_called", "tool": "get_weather", "args": {"latitude": 48.85, "longitude": 2.35}}
FLIGHTS = {
    "kind": "tool_called",
    "tool": "search_flights",
    "args": {"origin": "CDG", "destination": "FCO", "date": "2026-12-18"},
}
PROPOSED = [
    WEATHER,
    FLIGHTS,
    {"kind": "tool_sequence", "tools": ["get_weather", "search_flights"], "mode": "in_order"},
    {"kind": "no_tool_errors"},
    {"kind": "max_tool_calls", "max": 2},
    {"kind": "stop_reason", "equals": "completed"},
]


@pytest.fixture
def run(alice: User, scripted: ScriptedServer) -> Run:
    """Weather in Paris, then flights to Rome, then an answer: three model calls, two tools, in that order."""
    scripted.script(
        Answer(body=completion(tool_calls=[tool_call("c1", "get_weather", '{"latitude": 48.85, "longitude": 2.35}')])),
        Answer(
            body=completion(
                tool_calls=[
                    tool_call("c2", "search_flights", '{"origin": "CDG", "destination": "FCO", "date": "2026-12-18"}')
                ]
            )
        ),
        Answer(body=completion(content="Mild in Paris; AZ flights to Rome on the 18th.")),
    )
    provider = make_scripted_provider(scripted.base_url)
    started = run_start(scenario=make_scenario(make_demo_server(), provider=provider), user=alice)
    pipeline.execute_run(started.pk, worker="test")
    return Run.objects.get(pk=started.pk)


def page(run: Run) -> str:
    return f"/runs/{run.pk}/save-expectations/"


@pytest.mark.django_db(transaction=True)
class SaveAsExpectationsTests:
    def test_it_proposes_what_the_run_did(self, run: Run, alice_client: Client) -> None:
        html = alice_client.get(page(run)).content.decode()

        # Every proposal ticked, and "Re-score this run"; with no expectations yet, nothing to add to or replace.
        assert html.count('name="selected"') == len(PROPOSED) == html.count(" checked>") - 1
        assert 'name="mode"' not in html and "these become its first" in html
        for proposal in PROPOSED:
            if proposal is not FLIGHTS:  # PostgreSQL's jsonb reorders argument keys: FLIGHTS' clauses come below
                assert f"<span>{escape(describe(proposal))}</span>" in html
        for clause in ('origin = "CDG"', 'destination = "FCO"', 'date = "2026-12-18"'):
            assert escape(clause) in html
        assert "get_weather called with latitude = 48.85, longitude = 2.35" in html

    def test_saving_all_then_rescoring_the_run_passes(self, run: Run, alice_client: Client) -> None:
        response = alice_client.post(page(run), {"selected": [str(i) for i in range(6)], "mode": "add"})

        run.scenario.refresh_from_db()
        assert run.scenario.expectations == PROPOSED
        assert response["Location"] == f"/runs/{run.pk}/"
        rescore_runs([run.pk])  # what the queued re-score does on the worker
        run.refresh_from_db()
        assert (run.score, run.passed, run.score_reason) == (1.0, True, "6/6 expectations passed")

    def test_pruned_ones_are_left_out_and_existing_ones_kept_once(self, run: Run, alice_client: Client) -> None:
        run.scenario.expectations = [WEATHER]
        run.scenario.save()

        alice_client.post(page(run), {"selected": ["0", "2"], "mode": "add"})

        run.scenario.refresh_from_db()
        assert run.scenario.expectations == [WEATHER, PROPOSED[2]]

    def test_replace_mode_replaces_them(self, run: Run, alice_client: Client) -> None:
        run.scenario.expectations = [{"kind": "final_answer", "contains": "Berlin"}]
        run.scenario.save()

        alice_client.post(page(run), {"selected": ["1"], "mode": "replace"})

        run.scenario.refresh_from_db()
        assert run.scenario.expectations == [FLIGHTS]

    def test_an_existing_expectation_is_marked_and_not_ticked(self, run: Run, alice_client: Client) -> None:
        run.scenario.expectations = [WEATHER]
        run.scenario.save()

        html = alice_client.get(page(run)).content.decode()

        assert html.count("already on the scenario") == 1
        assert '<input type="checkbox" name="selected" value="0">' in html
        assert "The scenario has 1 expectation</legend>" in html and 'value="replace"' in html

    def test_nothing_selected_is_refused_and_saves_nothing(self, run: Run, alice_client: Client) -> None:
        response = alice_client.post(page(run), {"mode": "add", "rescore": "on"})

        assert response.status_code == 400
        assert "Select at least one expectation to save." in response.content.decode()
        run.scenario.refresh_from_db()
        assert run.scenario.expectations == []

    def test_an_unfinished_run_has_nothing_to_save_yet(self, alice: User, alice_client: Client) -> None:
        queued = run_start(scenario=make_scenario(make_demo_server()), user=alice)

        response = alice_client.get(page(queued), follow=True)

        assert f"Run #{queued.pk} is still queued" in response.content.decode()

    def test_the_run_page_links_it(self, run: Run, alice_client: Client) -> None:
        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert f'href="/runs/{run.pk}/save-expectations/"' in html


@pytest.mark.django_db(transaction=True)
class SaveAsExpectationsPermissionTests:
    def test_only_who_may_change_the_scenario_may_save_onto_it(self, run: Run, bob_client: Client) -> None:
        # The scenario has no recorded creator (make_scenario), so it is staff's: bob may read the run, not write.
        before = list(Run.objects.get(pk=run.pk).scenario.expectations)

        response = bob_client.post(page(run), {"selected": ["0"], "mode": "add"})

        assert response.status_code == 403
        assert Run.objects.get(pk=run.pk).scenario.expectations == before
        assert "Save as expectations" not in bob_client.get(f"/runs/{run.pk}/").content.decode()
