"""Calibration statistics against textbook cases."""

from __future__ import annotations

import pytest

from scorers.calibration.stats import (
    Confusion,
    agreement_of,
    chance_agreement,
    cohens_kappa,
    confusion,
    reviewer_agreement,
)


def pairs(*, tp: int = 0, fp: int = 0, tn: int = 0, fn: int = 0) -> list[tuple[bool, bool]]:
    return [(True, True)] * tp + [(True, False)] * fp + [(False, False)] * tn + [(False, True)] * fn


class ConfusionTests:
    def test_it_counts_a_pass_as_positive(self) -> None:
        assert confusion(pairs(tp=3, fp=2, tn=4, fn=1)) == Confusion(tp=3, fp=2, tn=4, fn=1)
        assert confusion([(True, False)]).fp == 1  # the scorer passed what people failed
        assert confusion([(False, True)]).fn == 1  # the scorer failed what people passed


class KappaTests:
    def test_perfect_agreement_is_one(self) -> None:
        result = agreement_of(pairs(tp=12, tn=8))
        assert result.kappa == 1.0
        assert result.agreement == 1.0
        assert (result.true_positive_rate, result.true_negative_rate) == (1.0, 1.0)
        assert result.reviewed == 20

    def test_chance_agreement_is_zero(self) -> None:
        # Each rater passes half the runs, independently: they agree on half, which is exactly chance.
        result = agreement_of(pairs(tp=25, fp=25, tn=25, fn=25))
        assert result.agreement == 0.5
        assert result.kappa == 0.0

    def test_a_judge_that_always_passes_has_kappa_zero(self) -> None:
        # People passed 15 and failed 5; the judge passed all 20: 75 % agreement, all of it chance.
        result = agreement_of(pairs(tp=15, fp=5))
        assert result.agreement == 0.75
        assert result.kappa == 0.0
        assert result.true_positive_rate == 1.0
        assert result.true_negative_rate == 0.0
        assert result.confusion.to_dict() == {"tp": 15, "fp": 5, "tn": 0, "fn": 0}

    def test_the_wikipedia_worked_example(self) -> None:
        # en.wikipedia.org/wiki/Cohen's_kappa: 50 proposals, yes/yes 20, yes/no 5, no/yes 10, no/no 15:
        # p_o = 0.7, p_e = 0.5 · 0.6 + 0.5 · 0.4 = 0.5, κ = 0.4.
        matrix = Confusion(tp=20, fp=5, fn=10, tn=15)
        assert chance_agreement(matrix) == pytest.approx(0.5)
        assert cohens_kappa(matrix) == pytest.approx(0.4)

    def test_the_second_wikipedia_example(self) -> None:
        # 45/15/25/15: p_o = 0.6, p_e = 0.54, κ = 0.06 / 0.46 ≈ 0.1304.
        assert cohens_kappa(Confusion(tp=45, fp=15, fn=25, tn=15)) == pytest.approx(0.06 / 0.46)

    def test_perfect_disagreement_is_minus_one(self) -> None:
        assert cohens_kappa(Confusion(fp=10, fn=10)) == -1.0

    def test_it_is_undefined_when_every_verdict_is_the_same(self) -> None:
        # Both said pass to every run: p_e = 1, so κ cannot tell this judge from one that always passes.
        result = agreement_of(pairs(tp=20))
        assert result.agreement == 1.0
        assert result.kappa is None
        assert result.true_negative_rate is None

    def test_nothing_reviewed_has_no_figures(self) -> None:
        result = agreement_of([])
        assert (result.reviewed, result.agreement, result.kappa, result.true_positive_rate) == (0, None, None, None)


class ReviewerAgreementTests:
    def test_it_compares_the_first_two_reviews_of_each_run(self) -> None:
        result = reviewer_agreement([[True, True], [False, False], [True, False, True], [True]])
        # The run with one review is left out; the third review of the third run does not count.
        assert result.reviewed == 3
        assert result.confusion == Confusion(tp=1, tn=1, fn=1)
        assert result.agreement == pytest.approx(2 / 3)

    def test_two_people_who_always_agree_have_kappa_one(self) -> None:
        assert reviewer_agreement([[True, True], [False, False]] * 5).kappa == 1.0
