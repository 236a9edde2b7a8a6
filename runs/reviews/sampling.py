"""A review queue's sample: up to N runs, as evenly as possible across automatic verdicts. Pure: no Django.

Even, not proportional: a judge is calibrated on the runs it failed as much as on those it passed, and an
experiment that passes 95% of its trials would otherwise give reviewers almost nothing but passes. Each verdict
("pass", "fail", "inconclusive") gets an equal share of N; a verdict with fewer runs than its share gives the rest
to the others. Within a verdict the runs are a seeded random choice, and the queue's order is shuffled too, so in
blind mode the order of the queue does not give the automatic verdict away.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Hashable, Iterable
from typing import TypeVar

T = TypeVar("T", bound=Hashable)


def shares(sizes: dict[str, int], n: int) -> dict[str, int]:
    """How many to take from each stratum: equal shares of `n`, capped by each stratum's size, the leftover handed
    on to strata that still have runs; strata in name order take the remainder of an uneven split first."""
    taken = dict.fromkeys(sizes, 0)
    left = min(n, sum(sizes.values()))
    while left > 0:
        open_ = [name for name in sorted(sizes) if taken[name] < sizes[name]]
        each, extra = divmod(left, len(open_))
        for index, name in enumerate(open_):
            more = min(each + (index < extra), sizes[name] - taken[name])
            taken[name] += more
            left -= more
    return taken


def stratified_sample(items: Iterable[tuple[T, str]], n: int, *, seed: int) -> list[T]:
    """Up to `n` of `items` ((id, stratum) pairs), stratified by stratum, in a shuffled order fixed by `seed`."""
    if n < 1:
        return []
    strata: dict[str, list[T]] = defaultdict(list)
    for item, stratum in items:
        strata[stratum].append(item)
    rng = random.Random(seed)  # noqa: S311 — a sample to review, not a secret
    chosen: list[T] = []
    for name, count in shares({name: len(members) for name, members in strata.items()}, n).items():
        chosen += rng.sample(sorted(strata[name], key=repr), count)
    rng.shuffle(chosen)
    return chosen
