"""Feeds the agent loop its next user message and records each user turn; runs/agent.py calls `next_message`
each time the agent has finished a turn (answered without a tool call).

Stop reasons: `completed` when the script is over or the agent called the simulation's goal tool without an
error; `user_done` when the simulated user said DONE; `max_user_turns` when it would speak once more than
allowed; a budget's own reason (token_budget, cost_budget) when the run reached one before the next message.
The simulated user's model calls are recorded in `Run.simulator_calls`, apart from the agent's tokens and cost,
and do not count against the run's budgets.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import anyio

from evalhub.model_client.client import ProviderClient
from evalhub.model_client.errors import ProviderError
from evalhub.providers.models import Provider
from runs.budgets import Budgets
from runs.conversation.simulator import Exchange, is_done, simulator_messages
from runs.conversation.spec import Conversation, parse_conversation
from runs.models import Run
from runs.recorder import Recorder


class SimulatorFailed(Exception):
    """The simulated user's provider failed: the run is inconclusive (runs.verdict), not the agent's failure."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind, self.message = kind, message


# A simulated user's message is short; this bounds what a looping simulator model can produce per turn.
SIMULATOR_MAX_TOKENS = 1024


def load_simulator_provider(run: Run) -> Provider | None:
    """The simulated user's own provider when the scenario picked one (a database read, before the run's async
    part); None when it uses the run's provider, has no simulated user, or its setting is invalid (which the run's
    own step then reports)."""
    try:
        simulation = parse_conversation(run.settings.get("conversation")).simulation
    except ValueError:
        return None
    if simulation is None or simulation.provider_id is None:
        return None
    return Provider.objects.filter(pk=simulation.provider_id).first()


@dataclass
class ConversationDriver:
    conversation: Conversation
    recorder: Recorder
    budgets: Budgets
    facts: Any = None  # what the simulated user knows: the scenario's `expected`
    simulator: ProviderClient | None = None
    simulator_model: str = ""
    stop_reason: str = Run.StopReason.COMPLETED
    _exchanges: list[Exchange] = field(default_factory=list)

    async def start(self, prompt: str) -> None:
        """Record the scenario's prompt as user turn 0."""
        self._exchanges.append(Exchange(user=prompt, agent=""))
        await self.recorder.user_turn("prompt", prompt)

    async def next_message(self, answer: str) -> str | None:
        """The next user message after the agent's `answer`, or None with `stop_reason` set."""
        self._exchanges[-1] = Exchange(user=self._exchanges[-1].user, agent=answer)
        stop = self._stop_before_next()
        message, source = "", "scripted"
        if stop is None and self.conversation.simulation is None:
            message = self.conversation.scripted[len(self._exchanges) - 1]
        elif stop is None:
            reply = await self._simulate()
            stop = Run.StopReason.USER_DONE if is_done(reply) else None
            message, source = reply.strip(), "simulated"
        if stop is not None:
            self.stop_reason = stop
            return None
        self._exchanges.append(Exchange(user=message, agent=""))
        await self.recorder.user_turn(source, message)
        return message

    def _stop_before_next(self) -> str | None:
        """Why the conversation ends before another user message, or None to go on."""
        follow_ups_sent = len(self._exchanges) - 1
        simulation = self.conversation.simulation
        if simulation is None:
            if follow_ups_sent >= len(self.conversation.scripted):
                return Run.StopReason.COMPLETED
        elif simulation.goal_tool and self._goal_tool_called(simulation.goal_tool):
            return Run.StopReason.COMPLETED
        elif follow_ups_sent >= simulation.max_user_turns:
            return Run.StopReason.MAX_USER_TURNS
        return self.budgets.reached(self.recorder.run)

    def _goal_tool_called(self, tool: str) -> bool:
        return any(call["toolName"] == tool and not call.get("isError") for call in self.recorder.run.tool_calls)

    async def _simulate(self) -> str:
        assert self.conversation.simulation is not None and self.simulator is not None
        messages = simulator_messages(self.conversation.simulation, self.facts, self._exchanges)
        client, model = self.simulator, self.simulator_model
        await self.recorder.entering(f"simulated user turn {len(self._exchanges)}")
        try:
            result = await anyio.to_thread.run_sync(
                lambda: client.chat(messages=messages, model=model, max_tokens=SIMULATOR_MAX_TOKENS),
                abandon_on_cancel=True,
            )
        except ProviderError as exc:
            raise SimulatorFailed(str(exc.kind), exc.message) from None
        await self.recorder.simulator_answered(result)
        return result.text
