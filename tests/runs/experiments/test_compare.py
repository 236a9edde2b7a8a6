"""experiment_compare: each category, new and removed cells, a single-trial flip, deltas and the summary line."""

from __future__ import annotations

import pytest

from evalhub.providers.models import offline_provider
from evalhub.scenarios.models import Scenario
from runs.experiments.compare import experiment_compare
from runs.experiments.models import Experiment
from runs.experiments.services import ModelChoice
from tests.runs.experiments.helpers import finish, second_provider, start, tagged_scenarios, trials_of


def run_with(
    scenarios: list[Scenario], outcomes: dict[str, list[bool]], *, trials: int, **finish_kw: object
) -> Experiment:
    """An experiment whose trials of each scenario pass or fail as `outcomes[name]` says, in trial order."""
    experiment = start(scenarios, trials=trials)
    for run in trials_of(experiment):
        passed = outcomes[run.cell.scenario_name][run.trial - 1]  # type: ignore[union-attr,operator]
        finish(run, passed=passed, **finish_kw)  # type: ignore[arg-type]
    return experiment


@pytest.mark.django_db
class CompareTests:
    def test_every_category_with_new_and_removed_cells(self) -> None:
        a, b, c, d, e, f, g = tagged_scenarios(7)
        baseline = run_with(
            [a, b, c, d, e, f],
            {
                a.name: [True] * 6,  # 6/6 → 0/6: regressed (p = 0.002)
                b.name: [False] * 6,  # 0/6 → 6/6: fixed
                c.name: [True] * 6,  # still passing
                d.name: [False] * 6,  # still failing
                e.name: [True, False] * 3,  # 3/6 → 3/6: unchanged (flaky in both)
                f.name: [True] * 6,  # 6/6 → 4/6: changed, not significant (p = 0.45)
            },
            trials=6,
            duration_ms=1000,
            cost="0.010",
        )
        candidate = run_with(
            [a, b, c, d, e, f, g],
            {
                a.name: [False] * 6,
                b.name: [True] * 6,
                c.name: [True] * 6,
                d.name: [False] * 6,
                e.name: [False, True] * 3,
                f.name: [True, True, True, True, False, False],
                g.name: [True] * 6,
            },
            trials=6,
            duration_ms=1400,
            cost="0.0088",
        )

        comparison = experiment_compare(candidate=candidate, baseline=baseline)

        kinds = {row.scenario_name: row.kind for row in comparison.rows}
        assert kinds == {
            a.name: "regressed",
            b.name: "fixed",
            c.name: "still_passing",
            d.name: "still_failing",
            e.name: "unchanged",
            f.name: "changed_not_significant",
            g.name: "new",
        }
        regressed = comparison.regressed[0]
        assert (regressed.pass_rate_delta, regressed.p50_delta_ms) == (-1.0, 400.0)
        assert regressed.cost_delta == pytest.approx(-0.0012)
        assert (
            comparison.summary
            == "1 regressed, 1 fixed, 4 unchanged, 1 new, 0 removed; cost \N{MINUS SIGN}12 %; p50 latency +0.4 s"
        )

    def test_a_removed_cell_and_a_single_trial_flip(self) -> None:
        a, b = tagged_scenarios(2)
        baseline = run_with([a, b], {a.name: [True], b.name: [True]}, trials=1)
        candidate = run_with([a], {a.name: [False]}, trials=1)

        comparison = experiment_compare(candidate=candidate, baseline=baseline)

        assert [(row.scenario_name, row.kind) for row in comparison.rows] == [
            (a.name, "regressed"),
            (b.name, "removed"),
        ]
        assert comparison.summary == "1 regressed, 0 fixed, 0 unchanged, 0 new, 1 removed; cost ±0 %; p50 latency ±0 s"

    def test_cost_deltas_are_written_in_dollars_as_elsewhere(self) -> None:
        (a,) = tagged_scenarios(1)
        baseline = run_with([a], {a.name: [True]}, trials=1, cost="0.001")
        dearer = run_with([a], {a.name: [True]}, trials=1, cost="0.003")
        same = run_with([a], {a.name: [True]}, trials=1, cost="0.001")

        ((up,), (flat,)) = (
            [row.delta_texts[2] for row in experiment_compare(candidate=c, baseline=baseline).rows]
            for c in (dearer, same)
        )

        assert (up, flat) == ("+$0.002", "±$0")

    def test_cells_match_on_scenario_and_model(self) -> None:
        (a,) = tagged_scenarios(1)
        baseline = run_with([a], {a.name: [True]}, trials=1)
        other = start([a], trials=1, models=[ModelChoice(second_provider(), "other-model")])
        finish(trials_of(other)[0], passed=True)

        comparison = experiment_compare(candidate=other, baseline=baseline)

        assert sorted((row.model, row.kind) for row in comparison.rows) == [
            ("evalhub-offline", "removed"),
            ("other-model", "new"),
        ]
        assert offline_provider().model_names == ["evalhub-offline"]

    def test_a_cell_with_no_finished_trial_is_pending(self) -> None:
        (a,) = tagged_scenarios(1)
        baseline = run_with([a], {a.name: [True]}, trials=1)
        candidate = start([a], trials=1)

        comparison = experiment_compare(candidate=candidate, baseline=baseline)

        assert comparison.rows[0].kind == "pending"
        assert comparison.summary == "0 regressed, 0 fixed, 0 unchanged"


@pytest.mark.django_db
class CompareInconclusiveTests:
    def test_inconclusive_trials_are_left_out_of_the_test(self) -> None:
        (scenario,) = tagged_scenarios(1)
        baseline = run_with([scenario], {scenario.name: [True] * 5}, trials=5)
        # 3 decided failures and 2 provider outages: 5/5 → 0/3, not 5/5 → 0/5.
        candidate = start([scenario], trials=5)
        for run in trials_of(candidate):
            outage = run.trial in (2, 4)
            finish(run, passed=False, verdict="inconclusive" if outage else "", cause="provider" if outage else "")

        row = experiment_compare(candidate=candidate, baseline=baseline).rows[0]

        assert (row.candidate.k, row.candidate.cell.inconclusive) == (3, 2)  # type: ignore[union-attr]
        assert row.kind == "regressed"
        # Fisher on [[5, 0], [0, 3]]: only the observed table is that unlikely, 1 / C(8, 3) = 1/56 (5/5 → 0/5 is 2/252).
        assert row.p_value == pytest.approx(1 / 56)
        assert row.record()["p_value"] == pytest.approx(0.0179, abs=1e-4)
        html = str(row.html(None))
        assert "5/5 → 0/3 · p 0.018 (0 → 2 inconclusive)" in html
        assert "causes: agent 3, provider 2" in html

    def test_a_side_with_only_inconclusive_trials_is_undecided_not_unchanged(self) -> None:
        (scenario,) = tagged_scenarios(1)
        baseline = run_with([scenario], {scenario.name: [True] * 3}, trials=3)
        candidate = start([scenario], trials=3)
        for run in trials_of(candidate):
            finish(run, passed=False, verdict="inconclusive", cause="provider")

        comparison = experiment_compare(candidate=candidate, baseline=baseline)

        assert comparison.rows[0].kind == "undecided"
        assert comparison.rows[0].p_value is None
        assert comparison.summary.startswith(
            "0 regressed, 0 fixed, 0 unchanged, 1 undecided (only inconclusive trials)"
        )
        assert comparison.record()["counts"] == {"undecided": 1}
