"""Which call gets which fault: Nth call, probability with a seeded RNG, recover_after, wedged."""

from __future__ import annotations

from runs.fault_injection.schedule import FaultSchedule
from runs.fault_injection.spec import parse_plan


def effects(plan: dict[str, object], tools: list[str], *, trial: int = 1) -> list[str | None]:
    schedule = FaultSchedule(parse_plan(plan), trial=trial)
    return [injection.effect if (injection := schedule.next(tool)) else None for tool in tools]


class FaultScheduleTests:
    def test_every_matching_call_by_default(self) -> None:
        plan = {"faults": [{"kind": "error", "tool": "search"}]}
        assert effects(plan, ["search", "book", "search"]) == ["error", None, "error"]

    def test_on_call_counts_only_the_faults_own_tool(self) -> None:
        plan = {"faults": [{"kind": "hang", "tool": "search", "on_call": 2}]}
        assert effects(plan, ["search", "book", "search", "search"]) == [None, None, "hang", None]

    def test_recover_after_fails_the_first_n_then_answers(self) -> None:
        plan = {"faults": [{"kind": "recover_after", "failures": 2, "fail_as": "drop"}]}
        assert effects(plan, ["a", "b", "a", "a"]) == ["drop", "drop", None, None]

    def test_wedged_hangs_every_later_call_of_any_tool(self) -> None:
        plan = {"faults": [{"kind": "wedged", "tool": "search", "on_call": 2}]}
        schedule = FaultSchedule(parse_plan(plan))
        got = [schedule.next(tool) for tool in ["search", "search", "book", "search"]]
        assert [(i.effect, i.nth) if i else None for i in got] == [None, ("hang", 1), ("hang", 2), ("hang", 3)]

    def test_the_first_fault_that_fires_wins_and_the_others_still_count(self) -> None:
        plan = {"faults": [{"name": "a", "kind": "error", "on_call": 1}, {"name": "b", "kind": "drop", "on_call": 2}]}
        schedule = FaultSchedule(parse_plan(plan))
        assert [i.fault.name if (i := schedule.next("x")) else None for _ in range(3)] == ["a", "b", None]

    def test_probability_is_reproducible_per_seed_and_trial(self) -> None:
        plan = {"faults": [{"kind": "error", "probability": 0.5}], "seed": 11}
        tools = ["search"] * 200
        first = effects(plan, tools, trial=1)
        assert first == effects(plan, tools, trial=1)
        assert first != effects(plan, tools, trial=2)
        fired = sum(effect == "error" for effect in first)
        # 200 draws at p = 0.5: 100 ± 3 standard deviations (7.1 each).
        assert 79 <= fired <= 121

    def test_probability_zero_and_one(self) -> None:
        assert effects({"faults": [{"kind": "hang", "probability": 0}]}, ["a"] * 20) == [None] * 20
        assert effects({"faults": [{"kind": "hang", "probability": 1}]}, ["a"] * 20) == ["hang"] * 20
