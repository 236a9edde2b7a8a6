"""Statistics over repeated trials: pass@k and pass^k, intervals, Fisher's exact test and a verdict per cell.

Pure Python (math only): no Django, no database and no scipy, so the worker and the views can call it freely.
A "cell" is one scenario x model of an experiment; its outcome is how many of its decided trials passed. Only
decided trials (a run's verdict pass or fail) are counted: an inconclusive one (a provider outage, a lost worker,
a skipped judge) says nothing about the agent or the server, so counting it as a failure would blame them for it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

# Two-sided 95 % critical values of Student's t (the 97.5 % quantile) for 1..30 degrees of freedom, to 4 decimals;
# past 30 the normal value 1.96 is within 4 % and the table stops. Kept here so nothing needs scipy at runtime.
T_975 = (
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
)  # fmt: skip
Z_975 = 1.96

# Tables whose probability is within this relative distance of the observed one count as "as extreme": the same
# tolerance scipy.stats.fisher_exact uses, so our p-values match it.
FISHER_RELATIVE_TOLERANCE = 1e-7


def _check_counts(successes: int, total: int, *, what: str = "passes") -> None:
    if total < 0:
        raise ValueError(f"The number of trials must be at least 0, got {total}.")
    if not 0 <= successes <= total:
        raise ValueError(f"The number of {what} must be between 0 and the number of trials ({total}), got {successes}.")


def _check_pass_k_arguments(n: int, c: int, k: int) -> None:
    _check_counts(c, n)
    if not 1 <= k <= n:
        raise ValueError(f"k must be between 1 and the number of trials ({n}), got {k}.")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chance that at least one of k trials drawn from the n run (c of which passed) passes: 1 - C(n-c, k)/C(n, k).

    The unbiased estimator of Chen et al. (2021): it uses all n trials rather than only the first k.
    """
    _check_pass_k_arguments(n, c, k)
    return 1 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """pass^k: chance that all of k trials drawn from the n run (c of which passed) pass: C(c, k)/C(n, k).

    Where pass@k rewards a model that gets it right sometimes, pass^k rewards one that gets it right every time.
    """
    _check_pass_k_arguments(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def wilson_interval(successes: int, n: int, z: float = Z_975) -> tuple[float, float]:
    """Wilson score interval for a pass rate (95 % by default); unlike the normal one it stays inside [0, 1].

    With no trials there is no evidence at all, so the interval is the whole range (0.0, 1.0).
    """
    _check_counts(successes, n, what="successes")
    if n == 0:
        return (0.0, 1.0)
    rate = successes / n
    shrink = 1 + z * z / n
    centre = (rate + z * z / (2 * n)) / shrink
    half_width = z / shrink * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n))
    # At a rate of 0 (or 1) the low (high) end is exactly 0 (1); floating point would give 1e-17 or 0.9999999999999999.
    low = 0.0 if successes == 0 else max(0.0, centre - half_width)
    high = 1.0 if successes == n else min(1.0, centre + half_width)
    return (low, high)


@dataclass(frozen=True)
class MeanInterval:
    """A mean and its 95 % confidence interval [low, high], from n values."""

    mean: float
    low: float
    high: float
    n: int


def t_critical_975(degrees_of_freedom: int) -> float:
    """The 97.5 % quantile of Student's t, from the table up to 30 degrees of freedom and 1.96 beyond."""
    if degrees_of_freedom < 1:
        raise ValueError(f"Degrees of freedom must be at least 1, got {degrees_of_freedom}.")
    return T_975[degrees_of_freedom - 1] if degrees_of_freedom <= len(T_975) else Z_975


def mean_interval(values: Sequence[float]) -> MeanInterval:
    """Mean with a 95 % interval from Student's t (right for the handful of trials an experiment runs).

    A single value has no spread to estimate, so its interval is the value itself (low = mean = high); read it as
    "one measurement", not as certainty.
    """
    if not values:
        raise ValueError("Cannot average an empty list of values.")
    n = len(values)
    mean = math.fsum(values) / n
    if n == 1:
        return MeanInterval(mean=mean, low=mean, high=mean, n=1)
    sample_variance = math.fsum((value - mean) ** 2 for value in values) / (n - 1)
    half_width = t_critical_975(n - 1) * math.sqrt(sample_variance / n)
    return MeanInterval(mean=mean, low=mean - half_width, high=mean + half_width, n=n)


def fisher_exact_two_sided(a_pass: int, a_total: int, b_pass: int, b_total: int) -> float:
    """Two-sided p-value of Fisher's exact test on the table [[a_pass, a_fail], [b_pass, b_fail]].

    Sums the hypergeometric probability of every table with the same margins that is no more likely than the
    observed one. Every probability shares the denominator C(N, a_total), so the numerators are compared as exact
    integers and only the final sum becomes a float.
    """
    _check_counts(a_pass, a_total)
    _check_counts(b_pass, b_total)
    total, passes = a_total + b_total, a_pass + b_pass
    fails = total - passes

    def weight(a_passes: int) -> int:
        return math.comb(passes, a_passes) * math.comb(fails, a_total - a_passes)

    observed = weight(a_pass)
    scale = round(1 / FISHER_RELATIVE_TOLERANCE)
    as_extreme = sum(
        w
        for x in range(max(0, a_total - fails), min(passes, a_total) + 1)
        if (w := weight(x)) * scale <= observed * (scale + 1)
    )
    return min(1.0, as_extreme / math.comb(total, a_total))


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0 to 100) with linear interpolation between closest ranks, as numpy's default does."""
    if not values:
        raise ValueError("Cannot take a percentile of an empty list of values.")
    if not 0 <= q <= 100:
        raise ValueError(f"The percentile must be between 0 and 100, got {q}.")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    below = math.floor(position)
    above = min(below + 1, len(ordered) - 1)
    return ordered[below] + (ordered[above] - ordered[below]) * (position - below)


@dataclass(frozen=True)
class CellOutcome:
    """How one cell (scenario x model) did: `passes` of its `trials` passed. A cell has at least one trial."""

    passes: int
    trials: int

    def __post_init__(self) -> None:
        if self.trials < 1:
            raise ValueError(f"A cell has at least one trial, got {self.trials}.")
        _check_counts(self.passes, self.trials)

    @property
    def pass_rate(self) -> float:
        return self.passes / self.trials


@dataclass(frozen=True)
class TrialCounts:
    """A cell's finished trials by their runs' verdicts."""

    passed: int = 0
    failed: int = 0
    inconclusive: int = 0

    @classmethod
    def of(cls, verdicts: Iterable[str]) -> TrialCounts:
        """Counted from run verdicts ("pass", "fail", "inconclusive"); "" (no verdict: cancelled, unfinished) is
        not a trial's result and is left out."""
        verdicts = list(verdicts)
        return cls(verdicts.count("pass"), verdicts.count("fail"), verdicts.count("inconclusive"))

    @property
    def decided(self) -> int:
        return self.passed + self.failed

    def outcome(self) -> CellOutcome | None:
        """The decided trials as an outcome for the statistics; None when none was decided."""
        return CellOutcome(self.passed, self.decided) if self.decided else None

    @property
    def text(self) -> str:
        """ "3 passed · 1 failed · 1 inconclusive" (inconclusive only when there is one)."""
        parts = [f"{self.passed} passed", f"{self.failed} failed"]
        return " · ".join([*parts, f"{self.inconclusive} inconclusive"] if self.inconclusive else parts)

    def undecided(self, max_inconclusive: int) -> bool:
        """Too many trials were inconclusive to decide: more than `max_inconclusive`, or no trial decided at all."""
        if max_inconclusive < 0:
            raise ValueError(f"The most inconclusive trials allowed must be at least 0, got {max_inconclusive}.")
        return self.inconclusive > max_inconclusive or (self.inconclusive > 0 and not self.decided)


class Verdict(StrEnum):
    """How a cell changed from the baseline to the candidate. `description` is the line shown to users."""

    REGRESSED = "regressed"
    FIXED = "fixed"
    STILL_FAILING = "still_failing"
    STILL_PASSING = "still_passing"
    UNCHANGED = "unchanged"
    CHANGED_NOT_SIGNIFICANT = "changed_not_significant"

    @property
    def description(self) -> str:
        return VERDICT_DESCRIPTIONS[self]


VERDICT_DESCRIPTIONS = {
    Verdict.REGRESSED: "Passes less often than the baseline, and the drop is too large to be chance.",
    Verdict.FIXED: "Passes more often than the baseline, and the gain is too large to be chance.",
    Verdict.STILL_FAILING: "Failed every trial, as in the baseline.",
    Verdict.STILL_PASSING: "Passed every trial, as in the baseline.",
    Verdict.UNCHANGED: "Flaky in both, at the same pass rate.",
    Verdict.CHANGED_NOT_SIGNIFICANT: "The pass rate moved, but too little for so few trials to tell it from chance.",
}


def compare_cells(baseline: CellOutcome, candidate: CellOutcome, alpha: float = 0.05) -> Verdict:
    """The verdict on one cell: did the candidate pass more or less often than the baseline, beyond chance?

    A two-sided Fisher test at `alpha` decides significance. One trial on each side is the exception: Fisher can
    never be significant there, yet a pass → fail flip is exactly what a single-trial comparison exists to catch,
    so such a flip is called regressed (or fixed, the other way).
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be between 0 and 1, got {alpha}.")
    # Cross-multiplied so that equal rates compare equal exactly, e.g. 1/3 and 2/6.
    baseline_share, candidate_share = baseline.passes * candidate.trials, candidate.passes * baseline.trials
    if baseline_share == candidate_share:
        if candidate.passes == candidate.trials:
            return Verdict.STILL_PASSING
        return Verdict.STILL_FAILING if candidate.passes == 0 else Verdict.UNCHANGED
    went_down = candidate_share < baseline_share
    if baseline.trials == candidate.trials == 1:
        return Verdict.REGRESSED if went_down else Verdict.FIXED
    if fisher_exact_two_sided(baseline.passes, baseline.trials, candidate.passes, candidate.trials) < alpha:
        return Verdict.REGRESSED if went_down else Verdict.FIXED
    return Verdict.CHANGED_NOT_SIGNIFICANT


def is_flaky(passes: int, trials: int) -> bool:
    """True when the trials disagree: some passed and some failed."""
    _check_counts(passes, trials)
    return 0 < passes < trials
