"""experiment_start: all-or-nothing quota, the refusal sentence, trial-major queueing, what it records."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.test import override_settings

from evalhub.providers.models import offline_provider
from runs.experiments.models import Experiment, ExperimentCell
from runs.experiments.services import (
    ExperimentInvalid,
    ExperimentQuotaExceeded,
    ModelChoice,
    model_resolve,
    scenarios_select,
)
from runs.models import DailyRunQuota, Run
from runs.quota import quota_status, reserve_runs
from tests.runs.experiments.helpers import second_provider, start, tagged_scenarios, trials_of


@pytest.mark.django_db
class ExperimentStartTests:
    def test_it_creates_one_cell_per_scenario_and_model_and_one_run_per_trial(self) -> None:
        scenarios = tagged_scenarios(2)
        other = second_provider()
        models = [ModelChoice(offline_provider(), "evalhub-offline"), ModelChoice(other, "other-model")]

        experiment = start(scenarios, trials=3, models=models, label="v1.2", tag="smoke")

        assert (experiment.total_runs, experiment.status, experiment.label, experiment.tag) == (
            12,
            "running",
            "v1.2",
            "smoke",
        )
        assert [c["model"] for c in experiment.model_list] == ["evalhub-offline", "other-model"]
        cells = list(ExperimentCell.objects.filter(experiment=experiment))
        assert [(c.scenario_name, c.model, c.row, c.column) for c in cells] == [
            ("Scenario 1", "evalhub-offline", 0, 0),
            ("Scenario 1", "other-model", 0, 1),
            ("Scenario 2", "evalhub-offline", 1, 0),
            ("Scenario 2", "other-model", 1, 1),
        ]
        runs = trials_of(experiment)
        assert len(runs) == 12 and all(run.status == "queued" for run in runs)
        assert {(run.provider_id, run.model) for run in runs} == {
            (offline_provider().pk, "evalhub-offline"),
            (other.pk, "other-model"),
        }
        assert quota_status().used == 12

    def test_runs_are_queued_trial_by_trial_across_every_cell(self, django_capture_on_commit_callbacks) -> None:  # type: ignore[no-untyped-def]
        scenarios = tagged_scenarios(2)
        models = [ModelChoice(offline_provider(), "evalhub-offline"), ModelChoice(second_provider(), "other-model")]

        with django_capture_on_commit_callbacks() as queued:
            experiment = start(scenarios, trials=2, models=models)

        order = [(run.trial, run.cell.row, run.cell.column) for run in trials_of(experiment) if run.cell]
        assert order == [(1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1), (2, 0, 0), (2, 0, 1), (2, 1, 0), (2, 1, 1)]
        # Once the transaction commits: one task per run, in that same order, and one write of their events.
        assert len(queued) == 8 + 1

    def test_a_later_edit_of_the_scenario_does_not_change_the_queued_trials(self) -> None:
        scenario = tagged_scenarios(1)[0]
        experiment = start([scenario], trials=1)

        scenario.prompt = "Something else entirely"
        scenario.save()

        assert trials_of(experiment)[0].settings["prompt"] == "What's the weather at latitude 48.85, longitude 2.35?"

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=30)
    def test_it_admits_nothing_when_the_whole_experiment_does_not_fit(self) -> None:
        scenarios = tagged_scenarios(4)
        reserve_runs(7)
        now = datetime.now(UTC)

        with pytest.raises(ExperimentQuotaExceeded) as refused:
            start(scenarios, trials=6)

        assert refused.value.needed == 24
        message = str(refused.value)
        assert message.startswith(
            "This experiment needs 24 runs; 23 are left today; the quota resets at 00:00 UTC, in "
        )
        assert message.endswith(" min.")
        assert not Experiment.objects.exists() and not Run.objects.exists()
        assert DailyRunQuota.objects.get(day=now.date()).used == 7

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=12)
    def test_it_admits_an_experiment_that_uses_exactly_what_is_left(self) -> None:
        reserve_runs(6)

        experiment = start(tagged_scenarios(2), trials=3)

        assert experiment.total_runs == 6 and quota_status().remaining == 0

    def test_it_refuses_trials_outside_1_to_20(self) -> None:
        scenarios = tagged_scenarios(1)
        for trials in (0, 21):
            with pytest.raises(ExperimentInvalid, match=f"Trials must be between 1 and 20, got {trials}."):
                start(scenarios, trials=trials)
        assert not Run.objects.exists() and quota_status().used == 0


@pytest.mark.django_db
class SelectionTests:
    def test_a_tag_selects_its_scenarios_in_name_order(self) -> None:
        tagged_scenarios(3, tag="smoke")

        assert [s.name for s in scenarios_select(tag="Smoke")] == ["Scenario 1", "Scenario 2", "Scenario 3"]

    def test_an_unknown_tag_or_id_says_which(self) -> None:
        with pytest.raises(ExperimentInvalid, match=re.escape("No scenario has the tag 'nope'.")):
            scenarios_select(tag="nope")
        with pytest.raises(ExperimentInvalid, match=re.escape("No scenario has id 999.")):
            scenarios_select(scenario_ids=[999])

    def test_a_model_resolves_to_the_only_provider_serving_it(self) -> None:
        assert model_resolve(model="evalhub-offline").provider == offline_provider()

    def test_a_model_served_by_several_providers_needs_a_provider_id(self) -> None:
        first = second_provider("A", ("shared",))
        second_provider("B", ("shared",))

        with pytest.raises(ExperimentInvalid, match=re.escape("Several providers serve 'shared': A")):
            model_resolve(model="shared")
        assert model_resolve(model="shared", provider_id=first.pk).provider == first

    def test_an_unserved_model_says_where_to_add_it(self) -> None:
        with pytest.raises(
            ExperimentInvalid, match=re.escape("No provider serves the model 'gpt-9'; add it to a provider")
        ):
            model_resolve(model="gpt-9")
