"""The simulated user's side of a conversation, Django-free: what it is asked, and how its reply is read.

The simulator is a model asked to play the user. It sees a system prompt (its goal, persona and the facts it
knows: the scenario's `expected`) and the conversation so far with the roles swapped, since it speaks as the
user: the user's messages are its own ("assistant"), the agent's answers are what it replies to ("user"). It
answers with the user's next message, or with the sentinel DONE alone on its last line when it is done (its
goal met, or nothing more to say). The offline model plays it deterministically
(evalhub/model_client/offline/simulated_user.py), so a conversation runs with no API key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from evalhub.model_client.offline.simulated_user import DONE_SENTINEL, FACTS_LABEL, SIMULATED_USER_HEADER
from runs.conversation.spec import Simulation


@dataclass(frozen=True)
class Exchange:
    """One user message and the agent's answer to it (empty while the agent has not answered)."""

    user: str
    agent: str


def simulator_messages(simulation: Simulation, facts: Any, exchanges: list[Exchange]) -> list[dict[str, Any]]:
    lines = [
        SIMULATED_USER_HEADER,
        f"Your goal: {simulation.goal}",
    ]
    if simulation.persona:
        lines.append(f"Your persona: {simulation.persona}")
    if facts is not None:
        lines.append(f"{FACTS_LABEL} {json.dumps(facts, ensure_ascii=False, separators=(', ', ': '))}")
    lines += [
        "Reply with the user's next message only: answer the assistant's questions from these facts, never invent "
        "other details, and stay in character.",
        f"When your goal is met, or you have nothing more to say, reply with exactly {DONE_SENTINEL}.",
    ]
    messages: list[dict[str, Any]] = [{"role": "system", "content": "\n".join(lines)}]
    for exchange in exchanges:
        messages.append({"role": "assistant", "content": exchange.user})
        if exchange.agent:
            messages.append({"role": "user", "content": exchange.agent})
    return messages


def is_done(reply: str) -> bool:
    """The simulator says it is done: its reply is DONE, or ends with a line that is DONE (after a goodbye). An
    empty reply says nothing more either, and is never sent to the agent as a message."""
    lines = [line.strip().strip(".!").strip() for line in reply.strip().splitlines() if line.strip()]
    return not lines or lines[-1].upper() == DONE_SENTINEL


def simulator_totals(calls: list[dict[str, Any]]) -> dict[str, Any]:
    """What a run's simulated user used, from `Run.simulator_calls`: calls, tokens and cost (None when a price is
    unknown: never a partial sum shown as the cost)."""
    costs = [call.get("cost_usd") for call in calls]
    return {
        "calls": len(calls),
        "input_tokens": sum(int(call.get("input_tokens", 0)) for call in calls),
        "output_tokens": sum(int(call.get("output_tokens", 0)) for call in calls),
        "cost_usd": None if None in costs else sum((Decimal(str(cost)) for cost in costs), Decimal(0)),
    }
