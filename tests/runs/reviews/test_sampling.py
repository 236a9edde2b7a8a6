"""The review queue's stratified sample (runs.reviews.sampling): equal shares across automatic verdicts."""

from __future__ import annotations

from collections import Counter

import pytest

from runs.reviews.sampling import shares, stratified_sample


def population(passes: int, fails: int, inconclusive: int = 0) -> list[tuple[int, str]]:
    verdicts = ["pass"] * passes + ["fail"] * fails + ["inconclusive"] * inconclusive
    return list(enumerate(verdicts))


class SharesTests:
    @pytest.mark.parametrize(
        ("sizes", "n", "expected"),
        [
            ({"pass": 95, "fail": 5}, 20, {"pass": 15, "fail": 5}),  # the rare verdict gives up what it lacks
            ({"pass": 50, "fail": 50}, 20, {"pass": 10, "fail": 10}),
            ({"fail": 10, "inconclusive": 10, "pass": 10}, 10, {"fail": 4, "inconclusive": 3, "pass": 3}),
            ({"pass": 3, "fail": 2}, 40, {"pass": 3, "fail": 2}),  # fewer runs than asked: all of them
            ({"pass": 0, "fail": 7}, 5, {"pass": 0, "fail": 5}),
            ({}, 5, {}),
        ],
    )
    def test_equal_shares_capped_by_what_each_verdict_has(
        self, sizes: dict[str, int], n: int, expected: dict[str, int]
    ) -> None:
        assert shares(sizes, n) == expected


class StratifiedSampleTests:
    def test_a_mostly_passing_experiment_still_gives_reviewers_its_failures(self) -> None:
        sample = stratified_sample(population(95, 5), 20, seed=1)
        verdicts = Counter("pass" if item < 95 else "fail" for item in sample)
        assert verdicts == {"pass": 15, "fail": 5}
        assert len(set(sample)) == 20

    def test_the_same_seed_gives_the_same_queue_and_another_seed_another(self) -> None:
        items = population(50, 50)
        assert stratified_sample(items, 10, seed=7) == stratified_sample(items, 10, seed=7)
        assert stratified_sample(items, 10, seed=7) != stratified_sample(items, 10, seed=8)

    def test_the_order_is_shuffled_so_it_does_not_give_the_verdicts_away(self) -> None:
        # Grouped by verdict, the first half of a blind queue would all be passes.
        orders = {
            tuple("pass" if item < 50 else "fail" for item in stratified_sample(population(50, 50), 10, seed=s))
            for s in range(20)
        }
        assert ("pass",) * 5 + ("fail",) * 5 not in orders or len(orders) > 1
        assert len(orders) > 10

    def test_nothing_asked_nothing_sampled(self) -> None:
        assert stratified_sample(population(3, 3), 0, seed=1) == []
