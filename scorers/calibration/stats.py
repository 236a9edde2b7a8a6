"""Agreement between a scorer and people (or between two people) on pass/fail: confusion, agreement, Cohen's κ.

Pure Python: no Django, no database, so the calibration service, the review pages and the tests call it freely.
"Positive" is a pass: each pair is (the scorer's verdict, the people's verdict), True for pass, False for fail.
Only decided pairs count (a skipped or errored scorer, an inconclusive run, an unreviewed run are left out by the
caller): they say nothing about whether the scorer agrees with people.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Confusion:
    """The confusion matrix of a scorer against people, a pass being positive.

    tp: both passed; fp: the scorer passed what people failed; tn: both failed; fn: the scorer failed what people
    passed.
    """

    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0

    @property
    def total(self) -> int:
        return self.tp + self.fp + self.tn + self.fn

    def to_dict(self) -> dict[str, int]:
        return {"tp": self.tp, "fp": self.fp, "tn": self.tn, "fn": self.fn}


@dataclass(frozen=True)
class Agreement:
    """Everything calibration shows about one set of pairs. A rate is None when it has nothing to divide by."""

    confusion: Confusion
    agreement: float | None
    kappa: float | None
    true_positive_rate: float | None
    true_negative_rate: float | None

    @property
    def reviewed(self) -> int:
        return self.confusion.total

    def to_dict(self) -> dict[str, object]:
        """The figures as the API gives them (GET /scorers/{id}/calibration, the wand's agreement)."""
        return {
            "reviewed": self.reviewed,
            "agreement": self.agreement,
            "kappa": self.kappa,
            "true_positive_rate": self.true_positive_rate,
            "true_negative_rate": self.true_negative_rate,
            "confusion": self.confusion.to_dict(),
        }


def confusion(pairs: Iterable[tuple[bool, bool]]) -> Confusion:
    """Count (scorer, people) verdict pairs into a confusion matrix."""
    tp = fp = tn = fn = 0
    for scorer, people in pairs:
        if scorer and people:
            tp += 1
        elif scorer:
            fp += 1
        elif people:
            fn += 1
        else:
            tn += 1
    return Confusion(tp=tp, fp=fp, tn=tn, fn=fn)


def observed_agreement(matrix: Confusion) -> float | None:
    """p_o = (tp + tn) / n: the share of runs on which the scorer and people gave the same verdict."""
    if matrix.total == 0:
        return None
    return (matrix.tp + matrix.tn) / matrix.total


def chance_agreement(matrix: Confusion) -> float | None:
    """p_e = (p_scorer_pass · p_people_pass) + (p_scorer_fail · p_people_fail): the agreement two raters with the
    same pass rates would reach by chance, each rater's rate taken from its own margin of the matrix."""
    n = matrix.total
    if n == 0:
        return None
    scorer_pass, people_pass = matrix.tp + matrix.fp, matrix.tp + matrix.fn
    return (scorer_pass * people_pass + (n - scorer_pass) * (n - people_pass)) / (n * n)


def cohens_kappa(matrix: Confusion) -> float | None:
    """Cohen's κ = (p_o - p_e) / (1 - p_e): agreement beyond chance, 1 when perfect, 0 when no better than chance,
    negative when worse.

    None when undefined: no pairs, or p_e = 1 (both raters gave one and the same verdict to every run, so the
    reviews cannot tell a scorer that judges from one that always answers the same).
    """
    p_o, p_e = observed_agreement(matrix), chance_agreement(matrix)
    if p_o is None or p_e is None or p_e == 1:
        return None
    return (p_o - p_e) / (1 - p_e)


def true_positive_rate(matrix: Confusion) -> float | None:
    """TPR = tp / (tp + fn): of the runs people passed, the share the scorer passed (its sensitivity)."""
    return matrix.tp / (matrix.tp + matrix.fn) if matrix.tp + matrix.fn else None


def true_negative_rate(matrix: Confusion) -> float | None:
    """TNR = tn / (tn + fp): of the runs people failed, the share the scorer failed (its specificity)."""
    return matrix.tn / (matrix.tn + matrix.fp) if matrix.tn + matrix.fp else None


def agreement_of(pairs: Iterable[tuple[bool, bool]]) -> Agreement:
    """Confusion, agreement, κ, TPR and TNR of (scorer, people) verdict pairs."""
    matrix = confusion(pairs)
    return Agreement(
        confusion=matrix,
        agreement=observed_agreement(matrix),
        kappa=cohens_kappa(matrix),
        true_positive_rate=true_positive_rate(matrix),
        true_negative_rate=true_negative_rate(matrix),
    )


def reviewer_agreement(verdicts_per_run: Iterable[Iterable[bool]]) -> Agreement:
    """How far two people agree: Cohen's κ over the runs at least two people reviewed.

    Each item is one run's reviews in the order they were given (True for pass); a run with one review is left
    out, and of a run with more only the first two count, so every run weighs the same (Cohen's κ is for two
    raters; "first" and "second" reviewer stand for any two people). TPR and TNR then read "the second reviewer
    passed what the first passed" and "failed what the first failed".
    """
    pairs = []
    for verdicts in verdicts_per_run:
        given = list(verdicts)
        if len(given) >= 2:
            pairs.append((given[1], given[0]))
    return agreement_of(pairs)
