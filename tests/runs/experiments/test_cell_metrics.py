"""Each cell's stored metrics: updated as its trials finish, recomputed on re-score, and the experiment's progress."""

from __future__ import annotations

from decimal import Decimal

import pytest

from runs.experiments.models import Experiment, ExperimentCell
from runs.experiments.services import experiment_cancel
from runs.models import Run
from runs.services import run_cancel
from runs.tasks import rescore_runs
from scorers.models import Scorer
from tests.runs.experiments.helpers import finish, start, tagged_scenarios, trials_of


@pytest.mark.django_db
class CellMetricsTests:
    def test_a_cell_stores_its_figures_as_its_trials_finish(self) -> None:
        experiment = start(tagged_scenarios(1), trials=3)
        first, second, third = trials_of(experiment)

        finish(first, passed=True, score=1.0, duration_ms=1000, tokens=(100, 20))
        cell = ExperimentCell.objects.get()
        assert (cell.finished, cell.counted, cell.passes) == (1, 1, 1)
        experiment.refresh_from_db()
        assert (experiment.finished_runs, experiment.status) == (1, "running")

        finish(second, passed=False, score=0.5, duration_ms=3000, tokens=(200, 40), cost="0.002")
        finish(third, passed=True, score=0.9, duration_ms=2000, tokens=(150, 30), cost="0.003")

        cell.refresh_from_db()
        assert (cell.finished, cell.counted, cell.passes, cell.errors) == (3, 3, 2, 0)
        assert cell.score_mean == pytest.approx(0.8)
        # t(0.975, 2) = 4.3027; sample sd of (1, 0.5, 0.9) = 0.2646; half width 4.3027 * 0.2646 / sqrt(3)
        assert (cell.score_low, cell.score_high) == (pytest.approx(0.1427, abs=1e-4), pytest.approx(1.4573, abs=1e-4))
        assert cell.durations_ms == [1000, 2000, 3000]
        assert cell.tokens_mean == pytest.approx(180.0)
        assert cell.cost_usd == Decimal("0.006")
        assert cell.failure == "agent: Missing expected tools: get_weather (0 of 1 called)."
        assert (cell.failure_causes, cell.failed_stages) == ({"agent": 1}, {"tool chosen": 1})
        experiment.refresh_from_db()
        assert (experiment.finished_runs, experiment.status) == (3, "done")
        assert experiment.finished_at is not None

    def test_a_server_error_counts_as_a_failure_and_an_unknown_price_makes_the_cost_unknown(self) -> None:
        experiment = start(tagged_scenarios(1), trials=2)
        first, second = trials_of(experiment)

        finish(first, passed=True, cost=None)
        finish(second, status="error")

        cell = ExperimentCell.objects.get()
        assert (cell.counted, cell.passes, cell.inconclusive, cell.errors, cell.cost_usd) == (2, 1, 0, 1, None)
        assert cell.failure == "server: No such file"
        assert (cell.failure_causes, cell.failed_stages) == ({"server": 1}, {"connected": 1})

    def test_inconclusive_trials_are_counted_apart_and_enter_no_statistic(self) -> None:
        experiment = start(tagged_scenarios(1), trials=5)
        runs = trials_of(experiment)

        for run in runs[:3]:
            finish(run, passed=True, score=1.0, duration_ms=1000)
        finish(runs[3], passed=False, score=0.2, duration_ms=1000)
        finish(runs[4], passed=False, score=0.0, verdict="inconclusive", cause="provider", duration_ms=5000)

        cell = ExperimentCell.objects.get()
        assert (cell.finished, cell.counted, cell.passes, cell.inconclusive) == (5, 4, 3, 1)
        assert cell.counts.text == "3 passed · 1 failed · 1 inconclusive"
        # The inconclusive trial's score (0.0) is not the agent's: the mean is over the decided ones.
        assert cell.score_mean == pytest.approx(0.8)
        assert cell.failure_causes == {"agent": 1, "provider": 1}
        # Only the failed trial failed at a stage; the inconclusive one stopped undecided.
        assert cell.failed_stages == {"tool chosen": 1}
        # It ran and was paid for: its time and cost are the cell's.
        assert cell.durations_ms == [1000, 1000, 1000, 1000, 5000]
        assert cell.cost_usd == Decimal("0.005")
        assert cell.failure == "agent: Missing expected tools: get_weather (0 of 1 called)."
        experiment.refresh_from_db()
        assert experiment.status == "done"

    def test_a_self_judging_trial_marks_its_cell(self) -> None:
        experiment = start(tagged_scenarios(1), trials=2)
        first, second = trials_of(experiment)

        finish(first, passed=True)
        assert not ExperimentCell.objects.get().self_judging
        finish(second, passed=True, self_judging=True)

        assert ExperimentCell.objects.get().self_judging

    def test_re_scoring_recomputes_the_cell(self) -> None:
        scenario = tagged_scenarios(1)[0]
        experiment = start([scenario], trials=2)
        runs = trials_of(experiment)
        for run in runs:
            finish(run, passed=True)
            Run.objects.filter(pk=run.pk).update(tool_names=["get_weather"])
        assert ExperimentCell.objects.get().passes == 2
        # A stricter scorer, run for real in the V8 sandbox by the re-score task.
        scenario.scorers.add(Scorer.objects.create(name="Never", kind="code", code="async () => 0"))

        rescore_runs([run.pk for run in runs])

        cell = ExperimentCell.objects.get()
        assert (cell.passes, cell.counted, cell.score_mean) == (0, 2, 0.0)


@pytest.mark.django_db
class ExperimentCancelTests:
    def test_cancel_stops_what_has_not_finished_and_keeps_what_has(self) -> None:
        experiment = start(tagged_scenarios(2), trials=2)
        runs = trials_of(experiment)
        finish(runs[0], passed=True)
        finish(runs[1], passed=False)
        Run.objects.filter(pk=runs[2].pk).update(status="running")

        experiment = experiment_cancel(experiment=experiment)

        statuses = dict(Run.objects.filter(experiment=experiment).values_list("pk", "status"))
        assert [statuses[run.pk] for run in runs] == ["done", "done", "running", "cancelled"]
        assert Run.objects.get(pk=runs[2].pk).cancel_requested
        assert experiment.status == Experiment.Status.CANCELLED
        assert experiment.finished_runs == 3
        first_cell, second_cell = ExperimentCell.objects.order_by("row")
        # Trial-major order: runs 0 and 2 are the first cell's trials, runs 1 and 3 the second's.
        assert (first_cell.passes, first_cell.counted, first_cell.finished) == (1, 1, 1)
        assert (second_cell.passes, second_cell.counted, second_cell.finished) == (0, 1, 2)

    def test_cancelling_one_queued_trial_from_its_run_page_refreshes_the_cell(self) -> None:
        experiment = start(tagged_scenarios(1), trials=2)
        run = trials_of(experiment)[0]

        run_cancel(run=run)

        assert ExperimentCell.objects.get().finished == 1
        experiment.refresh_from_db()
        assert experiment.finished_runs == 1
