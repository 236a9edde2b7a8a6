"""The experiment pages: form, matrix (constant queries), cancel, pin, compare (constant queries), divergence."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from evalhub.providers.model_choices import model_value
from evalhub.providers.models import offline_provider
from runs.experiments.models import BaselinePin, Experiment
from runs.models import Run
from tests.runs.experiments.helpers import finish, start, tagged_scenarios, trials_of


def finished_experiment(scenarios: list, *, passing: bool, trials: int = 2, **kw: object) -> Experiment:  # type: ignore[type-arg]
    experiment = start(scenarios, trials=trials, tag="smoke", **kw)  # type: ignore[arg-type]
    for run in trials_of(experiment):
        finish(run, passed=passing)
        result = {"content": [{"type": "text", "text": "18 °C" if passing else "Error: down"}], "isError": not passing}
        steps = [
            {
                "text": "",
                "toolCalls": [{"toolName": "get_weather", "args": {"latitude": 48.85}}],
                "toolResults": [{"toolName": "get_weather", "result": result}],
            },
            {"text": "It is 18 °C in Paris." if passing else "get_weather failed: down."},
        ]
        Run.objects.filter(pk=run.pk).update(transcript={"prompt": "p", "steps": steps})
    return experiment


@pytest.mark.django_db
class ExperimentCreateViewTests:
    def test_it_starts_an_experiment_by_tag_and_shows_its_matrix(self, alice_client: Client) -> None:
        tagged_scenarios(2)

        response = alice_client.post(
            reverse("experiments:create"),
            {
                "tag": "smoke",
                "models": [model_value(offline_provider(), "evalhub-offline")],
                "trials": "3",
                "label": "abc123",
            },
        )

        experiment = Experiment.objects.get()
        assert response.status_code == 302 and response["Location"] == reverse(
            "experiments:detail", args=[experiment.pk]
        )
        assert (experiment.total_runs, experiment.label, experiment.tag) == (6, "abc123", "smoke")
        page = alice_client.get(response["Location"]).content.decode()
        assert "0 / 6 runs" in page and "Scenario 2" in page
        assert f'data-live-events="experiment={experiment.pk}&amp;type=experiment.progress' in page
        # An unticked box: inconclusive trials are left as they are, and the page says so.
        assert not experiment.rerun_inconclusive
        assert "<dt>Inconclusive trials</dt><dd>not re-run</dd>" in page

    def test_the_form_offers_to_re_run_inconclusive_trials_ticked(self, alice_client: Client) -> None:
        tagged_scenarios(1)
        form = alice_client.get(reverse("experiments:create")).content.decode()
        assert 'name="rerun_inconclusive"' in form and "Re-run inconclusive trials once" in form
        assert re.search(r'<input type="checkbox" name="rerun_inconclusive"[^>]* checked', form)

        response = alice_client.post(
            reverse("experiments:create"),
            {
                "tag": "smoke",
                "models": [model_value(offline_provider(), "evalhub-offline")],
                "trials": "1",
                "rerun_inconclusive": "on",
            },
            follow=True,
        )

        assert Experiment.objects.get().rerun_inconclusive
        assert "re-run once (each re-run counts against the daily quota)" in response.content.decode()

    def test_the_only_model_there_is_comes_ticked(self, alice_client: Client) -> None:
        value = model_value(offline_provider(), "evalhub-offline")

        html = alice_client.get(reverse("experiments:create")).content.decode()

        assert re.search(rf'<input type="checkbox" name="models" value="{value}"[^>]* checked>', html)

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=5)
    def test_over_quota_it_keeps_the_form_and_says_what_it_needs(self, alice_client: Client) -> None:
        tagged_scenarios(2)

        response = alice_client.post(
            reverse("experiments:create"),
            {"tag": "smoke", "models": [model_value(offline_provider(), "evalhub-offline")], "trials": "3"},
        )

        assert response.status_code == 200
        assert (
            "This experiment needs 6 runs; 5 are left today; the quota resets at 00:00 UTC" in response.content.decode()
        )
        assert not Experiment.objects.exists()

    def test_it_asks_for_scenarios_and_models(self, alice_client: Client) -> None:
        response = alice_client.post(reverse("experiments:create"), {"trials": "3"})

        page = response.content.decode()
        assert "Choose a tag, or pick at least one scenario." in page and "This field is required." in page

    def test_it_requires_login_and_csrf(self, alice: object) -> None:
        assert Client().get(reverse("experiments:list")).status_code == 302
        client = Client(enforce_csrf_checks=True)
        client.force_login(alice)  # type: ignore[arg-type]
        assert client.post(reverse("experiments:create"), {"tag": "smoke"}).status_code == 403


@pytest.mark.django_db
class ExperimentListViewTests:
    def test_it_lists_experiments_with_progress_label_and_the_pinned_baseline(self, alice_client: Client) -> None:
        scenarios = tagged_scenarios(1)
        first = start(scenarios, trials=2, tag="smoke", label="v1")
        finish(trials_of(first)[0])
        BaselinePin.objects.create(tag="smoke", experiment=first)
        start(scenarios, trials=1, tag="smoke", label="v2", baseline=first)

        page = alice_client.get(reverse("experiments:list")).content.decode()

        assert "1 / 2 runs" in page and "0 / 1 runs" in page and ">v1<" in page and ">v2<" in page
        assert 'title="Pinned baseline of #smoke">baseline</span>' in page
        assert f"vs #{first.pk}" in page

    def test_with_none_it_says_what_an_experiment_is_for(self, alice_client: Client) -> None:
        page = alice_client.get(reverse("experiments:list")).content.decode()

        assert "No experiments yet" in page and "Start an experiment" in page


@pytest.mark.django_db
class ExperimentDetailViewTests:
    def test_the_matrix_shows_every_figure_of_a_cell_and_the_totals(self, alice_client: Client) -> None:
        experiment = start(tagged_scenarios(1), trials=3)
        for run, passed in zip(trials_of(experiment), [True, False, True], strict=True):
            finish(run, passed=passed, duration_ms=1000 if passed else 3000)

        page = alice_client.get(reverse("experiments:detail", args=[experiment.pk])).content.decode()

        assert "3 / 3 runs" in page and "hx-trigger" not in page
        assert "2/3" in page and "flaky" in page
        assert "pass@3 1.00 · pass^3 0.00 · pass@1 0.67" in page
        assert "p50 1.0 s · p95 2.8 s" in page
        assert f"?cell={experiment.cells.get().pk}" in page
        assert "67 %</strong> pass" in page and "(2/3; 95 % 21\N{EN DASH}94 %)" in page
        assert "pass@k</strong>: the chance that at least one of k trials passes" in page
        assert "<svg" in page

    def test_the_htmx_poll_returns_only_the_live_fragment(self, alice_client: Client) -> None:
        experiment = start(tagged_scenarios(1), trials=1)

        response = alice_client.get(reverse("experiments:detail", args=[experiment.pk]), HTTP_HX_REQUEST="true")

        body = response.content.decode()
        assert body.lstrip().startswith('<div id="experiment-live"') and "<html" not in body

    def test_the_page_costs_the_same_queries_however_many_runs(self, alice_client: Client) -> None:
        small = finished_experiment(tagged_scenarios(1, tag="a"), passing=True, trials=1)
        big = finished_experiment(tagged_scenarios(6, tag="b", prefix="Big"), passing=True, trials=5)
        counts = []
        for experiment in (small, big):
            with CaptureQueriesContext(connection) as queries:
                assert alice_client.get(reverse("experiments:detail", args=[experiment.pk])).status_code == 200
            counts.append(len(queries))
        assert counts[0] == counts[1] <= 8

    def test_cancel_keeps_finished_runs(self, alice_client: Client) -> None:
        experiment = start(tagged_scenarios(1), trials=3)
        finish(trials_of(experiment)[0])

        response = alice_client.post(reverse("experiments:cancel", args=[experiment.pk]), follow=True)

        assert "Cancelled: 3 finished runs are kept." in response.content.decode()  # 1 done + 2 cancelled
        assert list(Run.objects.filter(experiment=experiment).order_by("pk").values_list("status", flat=True)) == [
            "done",
            "cancelled",
            "cancelled",
        ]

    def test_pin_makes_it_the_tags_baseline(self, alice_client: Client) -> None:
        experiment = start(tagged_scenarios(1), trials=1, tag="smoke")

        alice_client.post(reverse("experiments:pin", args=[experiment.pk]))

        assert BaselinePin.objects.get(tag="smoke").experiment == experiment


@pytest.mark.django_db
class CompareAndDivergenceViewTests:
    def test_compare_names_the_regression_and_links_its_first_divergence(
        self, alice_client: Client, django_assert_max_num_queries: object
    ) -> None:
        scenarios = tagged_scenarios(3)
        baseline = finished_experiment(scenarios, passing=True, trials=5)
        candidate = finished_experiment(scenarios, passing=False, trials=5)

        with django_assert_max_num_queries(10):  # type: ignore[operator]
            response = alice_client.get(
                reverse("experiments:compare", args=[candidate.pk]) + f"?baseline={baseline.pk}"
            )

        page = response.content.decode()
        assert "3 regressed, 0 fixed, 0 unchanged; cost ±0 %; p50 latency ±0 s" in page
        assert '<td class="delta">\N{MINUS SIGN}100 pts</td>' in page
        good = trials_of(baseline)[0]
        bad = trials_of(candidate)[0]
        assert f'/experiments/runs/{bad.pk}/divergence/?baseline={good.pk}"' in page

        divergence = alice_client.get(reverse("experiments:divergence", args=[bad.pk]) + f"?baseline={good.pk}")

        text = divergence.content.decode()
        assert (
            "Step 1: same call get_weather(latitude: 48.85), different result: "
            "&quot;18 °C&quot; → error &quot;Error: down&quot;." in text
        )
        assert 'id="first-divergence"' in text
        # The error result is marked as one (red), the good one stays a plain result.
        assert (
            text.count('class="turn turn-result turn-result-error"><div class="turn-role">Error from get_weather') == 1
        )
        assert text.count('class="turn turn-result"><div class="turn-role">Result of get_weather') == 1

    def test_a_runs_page_offers_compare_with_and_lists_runs_of_its_scenario(self, alice_client: Client) -> None:
        experiment = finished_experiment(tagged_scenarios(1), passing=True, trials=2)
        first, second = trials_of(experiment)

        assert (
            reverse("experiments:divergence", args=[first.pk])
            in alice_client.get(reverse("runs:detail", args=[first.pk])).content.decode()
        )
        picker = alice_client.get(reverse("experiments:divergence", args=[first.pk])).content.decode()
        assert f"?baseline={second.pk}" in picker

    def test_a_cells_runs_are_listed_by_the_runs_list(self, alice_client: Client) -> None:
        experiment = start(tagged_scenarios(2), trials=2)
        cell = experiment.cells.get(row=1)

        page = alice_client.get(reverse("runs:list") + f"?cell={cell.pk}").content.decode()

        shown = {run.pk for run in Run.objects.all() if f'id="run-{run.pk}"' in page}
        assert shown == set(cell.runs.values_list("pk", flat=True)) and len(shown) == 2
