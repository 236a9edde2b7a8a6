"""Run-wide budgets of tokens and cost: when one is reached, the agent stops before its next model call.

They are checked between model calls, like max_turns: a call in flight is never cut off, so a run can end a little
over its budget (by at most one call, whose output `max_tokens` bounds). A run that answers in the call that
crosses a budget has completed; the budget stops only a run that would go on. A cost budget needs the model's
price: with an unknown cost (`Run.cost_usd` None) it cannot be checked, and the run page says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from runs.models import Run


@dataclass(frozen=True)
class Budgets:
    tokens: int | None = None
    cost_usd: Decimal | None = None

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> Budgets:
        """From a run's settings; runs started before budgets existed have none."""
        cost = settings.get("cost_budget_usd")
        return cls(tokens=settings.get("token_budget"), cost_usd=Decimal(cost) if cost is not None else None)

    def reached(self, run: Run) -> str | None:
        """The stop reason of the first budget `run` has reached, or None to go on."""
        if self.tokens is not None and run.input_tokens + run.output_tokens >= self.tokens:
            return Run.StopReason.TOKEN_BUDGET
        if self.cost_usd is not None and run.cost_usd is not None and run.cost_usd >= self.cost_usd:
            return Run.StopReason.COST_BUDGET
        return None
