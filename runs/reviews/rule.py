"""The human verdict of a run from its reviews, and how far its reviewers agree. Pure: no Django.

The rule: each reviewer has one vote (their latest answer). The verdict most reviewers gave wins; a tie goes to the
verdict of the most recent review, the person who looked last having seen what was there to see. No reviews, no
human verdict ("").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import combinations


@dataclass(frozen=True)
class Vote:
    verdict: str  # "pass" or "fail"
    at: datetime


def human_verdict(votes: Iterable[Vote]) -> str:
    """ "pass" or "fail" by majority, ties to the latest vote; "" with no votes."""
    ordered = sorted(votes, key=lambda vote: vote.at)
    if not ordered:
        return ""
    counts = Counter(vote.verdict for vote in ordered)
    if counts["pass"] == counts["fail"]:
        return ordered[-1].verdict
    return "pass" if counts["pass"] > counts["fail"] else "fail"


@dataclass(frozen=True)
class Agreement:
    """Between people, over runs that at least two of them reviewed: pairs of reviews that gave the same verdict."""

    runs: int  # runs with two or more reviews
    pairs: int
    agreeing_pairs: int

    @property
    def rate(self) -> float | None:
        return self.agreeing_pairs / self.pairs if self.pairs else None


def reviewer_agreement(verdicts_by_run: Iterable[Sequence[str]]) -> Agreement:
    """Pairwise agreement: for each run, every pair of its reviewers counts once (three reviewers: three pairs)."""
    runs = pairs = agreeing = 0
    for verdicts in verdicts_by_run:
        if len(verdicts) < 2:
            continue
        runs += 1
        for first, second in combinations(verdicts, 2):
            pairs += 1
            agreeing += first == second
    return Agreement(runs=runs, pairs=pairs, agreeing_pairs=agreeing)
