"""mcptest's `prompt` and `turns` (scripted messages or a simulated user) as an EvalHub prompt and conversation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from evalhub.suites.mcptest.context import Context
from evalhub.suites.mcptest.expect import Note


def prompt_and_conversation(scenario: dict[str, Any], agent: Mapping[str, Any], pointer: str, context: Context) -> int:
    """Set the scenario's prompt and conversation from `prompt` and `turns`; return the offset that turns mcptest's
    per_turn[i] into EvalHub's `turn` (EvalHub's turn 0 is the scenario's prompt)."""
    turns, prompt = agent.get("turns"), agent.get("prompt")
    if turns is None:
        scenario["prompt"] = context.text(prompt, f"{pointer}/prompt")
        return 0
    if isinstance(turns, list):
        said = [turn.get("user") if isinstance(turn, Mapping) else None for turn in turns]
        bad = [index for index, text in enumerate(said) if not isinstance(text, str) or not text.strip()]
        for index in bad:
            context.unsupported(f"{pointer}/turns/{index}", "a scripted turn is {user: message}")
        messages = [context.text(text, f"{pointer}/turns/{i}/user") for i, text in enumerate(said) if i not in bad]
        if prompt is not None:
            messages.insert(0, context.text(prompt, f"{pointer}/prompt"))
            context.notes.append(
                Note(
                    f"{pointer}/turns",
                    "approximated",
                    "the prompt is sent first, then each turn: per_turn[i] is turn i+1",
                )
            )
        if not messages:
            context.unsupported(f"{pointer}/turns", "no user message to start the conversation")
            return 0
        scenario["prompt"] = messages[0]
        if len(messages) > 1:
            scenario["conversation"] = {"turns": messages[1:]}
        return 1 if prompt is not None else 0
    simulate = turns.get("simulate") if isinstance(turns, Mapping) else None
    if not isinstance(simulate, Mapping) or not simulate.get("goal"):
        context.unsupported(f"{pointer}/turns", "turns is a list of {user: ...} or {simulate: {goal, ...}}")
        return 0
    goal = context.text(simulate["goal"], f"{pointer}/turns/simulate/goal")
    user: dict[str, Any] = {"goal": goal}
    if simulate.get("persona"):
        user["persona"] = context.text(simulate["persona"], f"{pointer}/turns/simulate/persona")
    if isinstance(simulate.get("max_turns"), int):
        user["max_user_turns"] = simulate["max_turns"]
    for key in simulate:
        if key not in ("goal", "persona", "max_turns"):
            context.unsupported(f"{pointer}/turns/simulate/{key}", "the simulated user takes goal, persona, max_turns")
    scenario["conversation"] = {"simulate": user}
    if prompt is None:
        # EvalHub's simulated user answers the agent; mcptest's also opens the conversation. The goal opens it here.
        scenario["prompt"] = goal
        context.notes.append(Note(f"{pointer}/turns/simulate", "approximated", "the goal is the first user message"))
    else:
        scenario["prompt"] = context.text(prompt, f"{pointer}/prompt")
    return 0
