"""Which tool call gets which fault: `FaultSchedule(plan, trial=n).next(tool) -> Injection | None`, one call at a
time, in the order the agent makes them. Pure and deterministic: the same plan, trial and calls give the same faults.

Rules:
- Each fault counts the calls it matches (its tool, or every tool). It fires on every one of them, only on its
  `on_call`-th, or on each with its `probability`; `recover_after` fires on its first `failures` matches.
- The first fault in the list that fires wins the call; the others still count it (so `on_call: 2` means the
  second call of that tool, whatever happened to the first).
- A `wedged` fault, once fired, hangs every later call on the connection, of any tool: nothing resets a run's
  connection before the run ends.
- Probabilities are drawn from a RNG seeded with the plan's `seed` and the trial number: trials of one
  experiment cell differ from each other, and re-running trial n draws the same faults.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from runs.fault_injection.spec import Fault, FaultPlan


@dataclass(frozen=True)
class Injection:
    fault: Fault
    # What the call does: "hang", "slow", "error" or "drop" (wedged hangs; recover_after fails as its fail_as).
    effect: str
    # This call is the fault's n-th matching call.
    nth: int

    def describe(self) -> dict[str, object]:
        """How the run's records name it (a tool call's `injectedFault`)."""
        return {"name": self.fault.name, "kind": self.fault.kind, "effect": self.effect, "nth": self.nth}


class FaultSchedule:
    def __init__(self, plan: FaultPlan, *, trial: int = 1) -> None:
        self._faults = plan.faults
        # Reproducible draws are the point here, not unpredictability.
        self._rng = random.Random(f"{plan.seed}:{trial}")  # noqa: S311
        self._matched = [0] * len(plan.faults)
        self._wedged: Fault | None = None
        self._wedged_calls = 0

    def next(self, tool: str) -> Injection | None:
        """The fault the next call (to `tool`) gets, or None for the real tool's answer."""
        chosen: Injection | None = None
        for index, fault in enumerate(self._faults):
            if not fault.matches(tool):
                continue
            self._matched[index] += 1
            nth = self._matched[index]
            # Drawn for every matching call, fired or not, so one fault's draws do not shift another's.
            fires = self._fires(fault, nth)
            if chosen is None and fires:
                chosen = Injection(fault, _effect(fault), nth)
        if self._wedged is None and chosen is not None and chosen.fault.kind == "wedged":
            self._wedged = chosen.fault
        if self._wedged is not None:
            # Counted from the call that wedged it: the wedged fault's n-th hung call.
            self._wedged_calls += 1
            return Injection(self._wedged, "hang", self._wedged_calls)
        return chosen

    def _fires(self, fault: Fault, nth: int) -> bool:
        if fault.kind == "recover_after":
            return nth <= fault.failures
        if fault.probability is not None:
            return self._rng.random() < fault.probability
        if fault.on_call is not None:
            return nth == fault.on_call
        return True


def _effect(fault: Fault) -> str:
    if fault.kind == "wedged":
        return "hang"
    if fault.kind == "recover_after":
        return fault.fail_as
    return fault.kind
