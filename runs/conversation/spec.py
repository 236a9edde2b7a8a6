"""A scenario's `conversation` setting: parsed and validated, every error naming where and what to do."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_SCRIPTED_TURNS = 50
MAX_USER_TURNS = 50
DEFAULT_MAX_USER_TURNS = 6
_SIMULATE_KEYS = ("goal", "persona", "model", "provider_id", "max_user_turns", "goal_tool")


@dataclass(frozen=True)
class Simulation:
    goal: str
    persona: str = ""
    model: str = ""  # empty: the run's own model
    provider_id: int | None = None  # None: the run's own provider
    max_user_turns: int = DEFAULT_MAX_USER_TURNS  # simulated messages after the scenario's prompt
    goal_tool: str = ""  # the goal is met once the agent has called this tool without an error


@dataclass(frozen=True)
class Conversation:
    scripted: tuple[str, ...] = ()
    simulation: Simulation | None = None

    @property
    def is_single_prompt(self) -> bool:
        return not self.scripted and self.simulation is None


def validate_conversation(data: Any, where: str = "conversation") -> list[str]:
    """Every problem of a `conversation` value; an empty list when it is valid. None and {} mean one prompt."""
    if data is None or data == {}:
        return []
    if not isinstance(data, dict):
        return [f'{where}: expected an object such as {{"turns": [...]}} or {{"simulate": {{...}}}}.']
    unknown = sorted(set(data) - {"turns", "simulate"})
    if unknown:
        return [f'{where}: unknown key {unknown[0]!r}; use "turns" (scripted) or "simulate" (a simulated user).']
    if "turns" in data and "simulate" in data:
        return [f'{where}: use either "turns" or "simulate", not both.']
    if "turns" in data:
        return _validate_turns(data["turns"], f"{where}.turns")
    return _validate_simulate(data["simulate"], f"{where}.simulate")


def _validate_turns(turns: Any, where: str) -> list[str]:
    if not isinstance(turns, list) or not turns:
        return [f"{where}: expected a non-empty list of follow-up messages (strings)."]
    if len(turns) > MAX_SCRIPTED_TURNS:
        return [f"{where}: at most {MAX_SCRIPTED_TURNS} follow-up messages, got {len(turns)}."]
    return [
        f"{where}[{i}]: expected a non-empty string (the user's message)"
        for i, turn in enumerate(turns)
        if not isinstance(turn, str) or not turn.strip()
    ]


def _validate_simulate(simulate: Any, where: str) -> list[str]:
    if not isinstance(simulate, dict):
        return [f'{where}: expected an object with at least a "goal".']
    errors = [
        f"{where}: unknown key {key!r} (allowed: {', '.join(_SIMULATE_KEYS)})"
        for key in simulate
        if key not in _SIMULATE_KEYS
    ]
    goal = simulate.get("goal")
    if not isinstance(goal, str) or not goal.strip():
        errors.append(f"{where}.goal: required, a sentence saying what the simulated user wants done.")
    for key in ("persona", "model", "goal_tool"):
        if key in simulate and not isinstance(simulate[key], str):
            errors.append(f"{where}.{key}: expected a string.")
    provider_id = simulate.get("provider_id")
    if provider_id is not None and (
        not isinstance(provider_id, int) or isinstance(provider_id, bool) or provider_id < 1
    ):
        errors.append(f"{where}.provider_id: expected a provider's id (a positive integer) or null.")
    max_turns = simulate.get("max_user_turns", DEFAULT_MAX_USER_TURNS)
    if not isinstance(max_turns, int) or isinstance(max_turns, bool) or not 1 <= max_turns <= MAX_USER_TURNS:
        errors.append(f"{where}.max_user_turns: expected an integer from 1 to {MAX_USER_TURNS}, got {max_turns!r}.")
    return errors


def parse_conversation(data: Any) -> Conversation:
    """A valid `conversation` value (see validate_conversation) as a Conversation."""
    errors = validate_conversation(data)
    if errors:
        raise ValueError("; ".join(errors))
    if not data:
        return Conversation()
    if "turns" in data:
        return Conversation(scripted=tuple(data["turns"]))
    simulate = data["simulate"]
    return Conversation(
        simulation=Simulation(
            goal=simulate["goal"].strip(),
            persona=simulate.get("persona", "").strip(),
            model=simulate.get("model", "").strip(),
            provider_id=simulate.get("provider_id"),
            max_user_turns=simulate.get("max_user_turns", DEFAULT_MAX_USER_TURNS),
            goal_tool=simulate.get("goal_tool", "").strip(),
        )
    )
