from __future__ import annotations

import math
import random
from fractions import Fraction
from itertools import combinations

import pytest

from runs.experiments.stats import (
    T_975,
    VERDICT_DESCRIPTIONS,
    CellOutcome,
    MeanInterval,
    TrialCounts,
    Verdict,
    compare_cells,
    fisher_exact_two_sided,
    is_flaky,
    mean_interval,
    pass_at_k,
    pass_hat_k,
    percentile,
    t_critical_975,
    wilson_interval,
)


def _every_n_c_k(max_n: int = 8) -> list[tuple[int, int, int]]:
    return [(n, c, k) for n in range(1, max_n + 1) for c in range(n + 1) for k in range(1, n + 1)]


def _brute_force(n: int, c: int, k: int) -> tuple[Fraction, Fraction]:
    """Share of all k-subsets of the n trials with at least one pass, and with only passes."""
    trials = [True] * c + [False] * (n - c)
    subsets = list(combinations(trials, k))
    any_pass = sum(any(subset) for subset in subsets)
    all_pass = sum(all(subset) for subset in subsets)
    return Fraction(any_pass, len(subsets)), Fraction(all_pass, len(subsets))


class PassAtKTests:
    @pytest.mark.parametrize(("n", "c", "k"), _every_n_c_k())
    def test_it_matches_brute_force_over_all_subsets(self, n: int, c: int, k: int) -> None:
        any_pass, all_pass = _brute_force(n, c, k)
        assert pass_at_k(n, c, k) == pytest.approx(float(any_pass), abs=1e-12)
        assert pass_hat_k(n, c, k) == pytest.approx(float(all_pass), abs=1e-12)

    def test_k_of_one_is_the_pass_rate(self) -> None:
        assert pass_at_k(10, 3, 1) == pytest.approx(0.3)
        assert pass_hat_k(10, 3, 1) == pytest.approx(0.3)

    def test_it_is_certain_when_too_few_failures_to_fill_k(self) -> None:
        assert pass_at_k(5, 3, 3) == 1.0

    @pytest.mark.parametrize("function", [pass_at_k, pass_hat_k])
    @pytest.mark.parametrize(
        ("n", "c", "k", "message"),
        [
            (5, 6, 1, "number of passes must be between 0 and the number of trials (5), got 6"),
            (5, -1, 1, "number of passes must be between 0 and the number of trials (5), got -1"),
            (5, 2, 0, "k must be between 1 and the number of trials (5), got 0"),
            (5, 2, 6, "k must be between 1 and the number of trials (5), got 6"),
            (0, 0, 1, "k must be between 1 and the number of trials (0), got 1"),
            (-1, 0, 1, "number of trials must be at least 0, got -1"),
        ],
    )
    def test_it_rejects_bad_arguments(self, function: object, n: int, c: int, k: int, message: str) -> None:
        assert callable(function)
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            function(n, c, k)


class WilsonIntervalTests:
    @pytest.mark.parametrize(
        ("successes", "n", "low", "high"),
        [
            (0, 10, 0.0, 0.2775),
            (5, 10, 0.2366, 0.7634),
            (10, 10, 0.7225, 1.0),
            (1, 1, 0.2065, 1.0),
            (81, 263, 0.2553, 0.3662),
        ],
    )
    def test_it_matches_known_values(self, successes: int, n: int, low: float, high: float) -> None:
        assert wilson_interval(successes, n) == pytest.approx((low, high), abs=1e-4)

    def test_it_stays_inside_zero_and_one(self) -> None:
        for n in range(1, 30):
            for successes in range(n + 1):
                low, high = wilson_interval(successes, n)
                assert 0.0 <= low <= successes / n <= high <= 1.0

    def test_no_trials_gives_the_whole_range(self) -> None:
        assert wilson_interval(0, 0) == (0.0, 1.0)

    def test_a_wider_z_gives_a_wider_interval(self) -> None:
        narrow, wide = wilson_interval(5, 10, z=1.0), wilson_interval(5, 10, z=2.576)
        assert wide[0] < narrow[0] and narrow[1] < wide[1]

    def test_it_rejects_more_successes_than_trials(self) -> None:
        with pytest.raises(ValueError, match="number of successes must be between 0"):
            wilson_interval(11, 10)


class MeanIntervalTests:
    def test_it_uses_student_t_for_small_samples(self) -> None:
        # By hand: mean 3, s = sqrt(2.5) = 1.5811, s/sqrt(5) = 0.70711, t(4) = 2.7764, half width 1.96321.
        result = mean_interval([1.0, 2.0, 3.0, 4.0, 5.0])
        assert result.mean == 3.0
        assert result.n == 5
        assert (result.low, result.high) == pytest.approx((1.03679, 4.96321), abs=1e-5)

    def test_two_values(self) -> None:
        # By hand: mean 0.5, s = 0.70711, s/sqrt(2) = 0.5, t(1) = 12.7062, half width 6.3531.
        result = mean_interval([0.0, 1.0])
        assert (result.low, result.high) == pytest.approx((0.5 - 6.3531, 0.5 + 6.3531))

    def test_it_uses_1_96_beyond_thirty_degrees_of_freedom(self) -> None:
        values = [float(i % 2) for i in range(40)]  # mean 0.5, s = sqrt(10/39)
        result = mean_interval(values)
        half_width = 1.96 * math.sqrt(10 / 39) / math.sqrt(40)
        assert (result.low, result.high) == pytest.approx((0.5 - half_width, 0.5 + half_width))

    def test_one_value_has_an_interval_equal_to_itself(self) -> None:
        assert mean_interval([0.8]) == MeanInterval(mean=0.8, low=0.8, high=0.8, n=1)

    def test_identical_values_have_no_width(self) -> None:
        assert mean_interval([0.5, 0.5, 0.5]) == MeanInterval(mean=0.5, low=0.5, high=0.5, n=3)

    def test_it_rejects_no_values(self) -> None:
        with pytest.raises(ValueError, match="empty list"):
            mean_interval([])

    def test_the_t_table_is_the_97_5_percent_quantile(self) -> None:
        # Integrates Student's t density (Simpson's rule) up to each tabulated value: the area must be 0.975.
        def density(t: float, df: int) -> float:
            scale = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
            return scale * (1 + t * t / df) ** (-(df + 1) / 2)

        for df, quantile in enumerate(T_975, start=1):
            steps = 2000
            width = quantile / steps
            weights = [1 if i in (0, steps) else 4 if i % 2 else 2 for i in range(steps + 1)]
            area = sum(w * density(i * width, df) for i, w in enumerate(weights)) * width / 3
            assert 0.5 + area == pytest.approx(0.975, abs=1e-5), df

    def test_t_critical_value_lookup(self) -> None:
        assert t_critical_975(1) == 12.7062
        assert t_critical_975(30) == 2.0423
        assert t_critical_975(31) == 1.96
        with pytest.raises(ValueError, match="Degrees of freedom must be at least 1, got 0"):
            t_critical_975(0)


class FisherExactTests:
    @pytest.mark.parametrize(
        ("table", "expected"),
        [
            (((3, 1), (1, 3)), 0.4857142857),  # Fisher's tea-tasting lady
            (((1, 9), (11, 3)), 0.002759456),
            (((0, 5), (5, 0)), 0.0079365079),
            (((5, 0), (5, 0)), 1.0),
            (((8, 2), (1, 5)), 0.0349650350),
            (((10, 0), (0, 10)), 1.0825088224e-05),
        ],
    )
    def test_it_matches_textbook_values(self, table: tuple[tuple[int, int], ...], expected: float) -> None:
        (a_pass, a_fail), (b_pass, b_fail) = table
        p_value = fisher_exact_two_sided(a_pass, a_pass + a_fail, b_pass, b_pass + b_fail)
        assert p_value == pytest.approx(expected, rel=1e-6)

    def test_it_is_symmetric_in_groups_and_in_outcomes(self) -> None:
        generator = random.Random(7)
        for _ in range(300):
            a_total, b_total = generator.randint(0, 15), generator.randint(0, 15)
            a_pass, b_pass = generator.randint(0, a_total), generator.randint(0, b_total)
            p_value = fisher_exact_two_sided(a_pass, a_total, b_pass, b_total)
            assert 0.0 < p_value <= 1.0
            assert fisher_exact_two_sided(b_pass, b_total, a_pass, a_total) == pytest.approx(p_value)
            assert fisher_exact_two_sided(a_total - a_pass, a_total, b_total - b_pass, b_total) == pytest.approx(
                p_value
            )

    def test_a_single_trial_each_is_never_significant(self) -> None:
        assert fisher_exact_two_sided(1, 1, 0, 1) == 1.0

    def test_empty_groups_give_one(self) -> None:
        assert fisher_exact_two_sided(0, 0, 3, 5) == 1.0

    def test_it_rejects_impossible_counts(self) -> None:
        with pytest.raises(ValueError, match=r"number of passes must be between 0 and the number of trials \(4\)"):
            fisher_exact_two_sided(5, 4, 1, 4)
        with pytest.raises(ValueError, match="number of trials must be at least 0, got -2"):
            fisher_exact_two_sided(0, 4, 0, -2)


class PercentileTests:
    @pytest.mark.parametrize(
        ("values", "q", "expected"),
        [
            ([1, 2, 3, 4], 50, 2.5),
            ([15, 20, 35, 40, 50], 40, 29.0),
            (list(range(1, 11)), 95, 9.55),
            ([3, 1, 2], 50, 2.0),
            ([7], 95, 7.0),
            ([1, 9], 0, 1.0),
            ([1, 9], 100, 9.0),
        ],
    )
    def test_it_interpolates_like_numpy(self, values: list[float], q: float, expected: float) -> None:
        assert percentile(values, q) == pytest.approx(expected)

    def test_it_rejects_no_values_and_bad_percentiles(self) -> None:
        with pytest.raises(ValueError, match="empty list"):
            percentile([], 50)
        with pytest.raises(ValueError, match="between 0 and 100, got 101"):
            percentile([1.0], 101)
        with pytest.raises(ValueError, match="between 0 and 100, got -1"):
            percentile([1.0], -1)


class CompareCellsTests:
    @pytest.mark.parametrize(
        ("baseline", "candidate", "verdict"),
        [
            ((10, 10), (2, 10), Verdict.REGRESSED),
            ((1, 10), (9, 10), Verdict.FIXED),
            ((0, 5), (0, 5), Verdict.STILL_FAILING),
            ((0, 3), (0, 7), Verdict.STILL_FAILING),
            ((5, 5), (5, 5), Verdict.STILL_PASSING),
            ((3, 3), (6, 6), Verdict.STILL_PASSING),
            ((2, 4), (2, 4), Verdict.UNCHANGED),
            ((1, 3), (2, 6), Verdict.UNCHANGED),
            ((5, 5), (4, 5), Verdict.CHANGED_NOT_SIGNIFICANT),
            ((0, 3), (2, 3), Verdict.CHANGED_NOT_SIGNIFICANT),
            ((1, 1), (0, 5), Verdict.CHANGED_NOT_SIGNIFICANT),
        ],
    )
    def test_each_verdict(self, baseline: tuple[int, int], candidate: tuple[int, int], verdict: Verdict) -> None:
        assert compare_cells(CellOutcome(*baseline), CellOutcome(*candidate)) == verdict

    def test_a_single_trial_flip_counts(self) -> None:
        assert compare_cells(CellOutcome(1, 1), CellOutcome(0, 1)) == Verdict.REGRESSED
        assert compare_cells(CellOutcome(0, 1), CellOutcome(1, 1)) == Verdict.FIXED
        assert compare_cells(CellOutcome(1, 1), CellOutcome(1, 1)) == Verdict.STILL_PASSING
        assert compare_cells(CellOutcome(0, 1), CellOutcome(0, 1)) == Verdict.STILL_FAILING

    def test_alpha_sets_the_bar(self) -> None:
        # Fisher's p for 5/5 against 1/5 is 0.0476.
        baseline, candidate = CellOutcome(5, 5), CellOutcome(1, 5)
        assert compare_cells(baseline, candidate) == Verdict.REGRESSED
        assert compare_cells(baseline, candidate, alpha=0.01) == Verdict.CHANGED_NOT_SIGNIFICANT

    def test_it_rejects_a_bad_alpha(self) -> None:
        with pytest.raises(ValueError, match=r"alpha must be between 0 and 1, got 1\.5"):
            compare_cells(CellOutcome(1, 1), CellOutcome(1, 1), alpha=1.5)

    def test_every_verdict_has_a_one_line_description(self) -> None:
        assert set(VERDICT_DESCRIPTIONS) == set(Verdict)
        for verdict in Verdict:
            assert verdict.description and "\n" not in verdict.description
        assert Verdict.REGRESSED == "regressed"


class CellOutcomeTests:
    def test_pass_rate(self) -> None:
        assert CellOutcome(passes=3, trials=4).pass_rate == 0.75

    def test_it_rejects_impossible_outcomes(self) -> None:
        with pytest.raises(ValueError, match="at least one trial, got 0"):
            CellOutcome(passes=0, trials=0)
        with pytest.raises(ValueError, match=r"between 0 and the number of trials \(2\), got 3"):
            CellOutcome(passes=3, trials=2)


class IsFlakyTests:
    def test_only_mixed_outcomes_are_flaky(self) -> None:
        assert is_flaky(2, 5)
        assert not is_flaky(0, 5)
        assert not is_flaky(5, 5)
        assert not is_flaky(1, 1)
        assert not is_flaky(0, 0)

    def test_it_rejects_impossible_counts(self) -> None:
        with pytest.raises(ValueError, match="between 0 and the number of trials"):
            is_flaky(3, 2)


class TrialCountsTests:
    @pytest.mark.parametrize(
        ("verdicts", "counts", "decided", "outcome", "text"),
        [
            ([], (0, 0, 0), 0, None, "0 passed · 0 failed"),
            (["pass"] * 3, (3, 0, 0), 3, CellOutcome(3, 3), "3 passed · 0 failed"),
            (["pass", "fail", "pass"], (2, 1, 0), 3, CellOutcome(2, 3), "2 passed · 1 failed"),
            (
                ["pass", "pass", "fail", "inconclusive", "pass"],
                (3, 1, 1),
                4,
                CellOutcome(3, 4),
                "3 passed · 1 failed · 1 inconclusive",
            ),
            (["inconclusive", "inconclusive"], (0, 0, 2), 0, None, "0 passed · 0 failed · 2 inconclusive"),
            # No verdict yet (queued, running, cancelled): not a trial's result.
            (["", "pass", ""], (1, 0, 0), 1, CellOutcome(1, 1), "1 passed · 0 failed"),
        ],
    )
    def test_only_decided_trials_make_the_outcome(
        self,
        verdicts: list[str],
        counts: tuple[int, int, int],
        decided: int,
        outcome: CellOutcome | None,
        text: str,
    ) -> None:
        trials = TrialCounts.of(verdicts)
        assert (trials.passed, trials.failed, trials.inconclusive) == counts
        assert trials.decided == decided
        assert trials.outcome() == outcome
        assert trials.text == text

    def test_an_inconclusive_trial_moves_no_statistic(self) -> None:
        """5 passes and an outage: pass rate, pass^k and Fisher read 5/5, as if the outage had not been run."""
        outcome = TrialCounts(passed=5, failed=0, inconclusive=1).outcome()
        assert outcome is not None
        assert (outcome.pass_rate, pass_hat_k(outcome.trials, outcome.passes, outcome.trials)) == (1.0, 1.0)
        assert compare_cells(outcome, CellOutcome(0, 5)) == Verdict.REGRESSED
        assert fisher_exact_two_sided(outcome.passes, outcome.trials, 0, 5) == pytest.approx(2 / 252)

    @pytest.mark.parametrize(
        ("counts", "max_inconclusive", "undecided"),
        [
            ((5, 0, 0), 0, False),
            ((4, 0, 1), 0, True),
            ((4, 0, 1), 1, False),
            ((3, 0, 2), 1, True),
            ((0, 3, 2), 2, False),
            # Nothing decided is never a decision, however many are allowed.
            ((0, 0, 2), 5, True),
            ((0, 0, 0), 0, False),
        ],
    )
    def test_undecided_when_more_than_allowed_were_inconclusive(
        self, counts: tuple[int, int, int], max_inconclusive: int, undecided: bool
    ) -> None:
        assert TrialCounts(*counts).undecided(max_inconclusive) is undecided

    def test_it_rejects_a_negative_allowance(self) -> None:
        with pytest.raises(ValueError, match="at least 0, got -1"):
            TrialCounts(1, 0, 0).undecided(-1)
