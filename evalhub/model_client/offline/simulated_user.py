"""The offline model playing a simulated user (runs/conversation/simulator.py asks it), deterministically.

A request is a simulated user's when its system message starts with SIMULATED_USER_HEADER. The facts the user
knows are the JSON object on the line starting with FACTS_LABEL (the scenario's `expected`). The latest "user"
message is the agent's latest answer (the simulator sees the conversation with the roles swapped). When that
answer asks something (a "?", or "need", "tell me", "provide", "let me know"), the reply gives every fact whose
name it mentions ("origin", "passengers", "departure date" for
`departure_date`), as "name: value" pairs in the order the answer names them (not the facts' order, which
PostgreSQL's jsonb does not keep): "origin: London; date: 2026-12-18;
passengers: 2." An answer that asks nothing, or asks for no known fact, leaves the user nothing to say: DONE_SENTINEL.
"""

from __future__ import annotations

import json
import re
from typing import Any

SIMULATED_USER_HEADER = "You are playing the user in a conversation with an AI assistant."
FACTS_LABEL = "Facts you know (JSON):"
# The whole reply of a simulated user who is done (its goal met, or nothing more to say).
DONE_SENTINEL = "DONE"
_ASKS = re.compile(r"\?|\b(need|tell me|provide|let me know)\b", re.IGNORECASE)


def is_simulated_user_request(messages: list[dict[str, Any]]) -> bool:
    first = messages[0] if messages else {}
    content = first.get("content")
    return first.get("role") == "system" and isinstance(content, str) and content.startswith(SIMULATED_USER_HEADER)


def simulated_user_reply(messages: list[dict[str, Any]]) -> str:
    facts = _facts(str(messages[0].get("content", "")))
    agent_said = next((m.get("content") for m in reversed(messages) if m.get("role") == "user"), "")
    text = agent_said if isinstance(agent_said, str) else ""
    mentioned = [(_mention(text, name), name, value) for name, value in facts.items()] if _ASKS.search(text) else []
    asked = sorted((at, name, value) for at, name, value in mentioned if at >= 0)
    if not asked:
        return DONE_SENTINEL
    return "; ".join(f"{name}: {_render(value)}" for _, name, value in asked) + "."


def _facts(system_prompt: str) -> dict[str, Any]:
    for line in system_prompt.splitlines():
        if line.startswith(FACTS_LABEL):
            try:
                facts = json.loads(line[len(FACTS_LABEL) :])
            except json.JSONDecodeError:
                return {}
            return facts if isinstance(facts, dict) else {}
    return {}


def _mention(text: str, name: str) -> int:
    """Where `text` first names the fact (snake_case read as words), or -1."""
    words = re.sub(r"[_\-]+", " ", name).strip()
    found = re.search(rf"\b{re.escape(words)}\b", text, re.IGNORECASE) if words else None
    return found.start() if found else -1


def _render(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
