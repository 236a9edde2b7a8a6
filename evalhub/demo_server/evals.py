"""The demo server's own evals, served as the evals/list proposal (reference 000) defines them.

One eval of each valid level and grading pair, so a user sees every kind EvalHub can run. The SDK has no notion of
evals: `ShippedEvals` is server middleware that adds the `evals` capability to the initialize result and answers
`evals/list` itself (cursor pages, optional `level` filter) before the SDK would answer "method not found".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

LEVELS = ("invocation", "execution", "scenario")
# Where a server announces its capabilities: the handshake, or the 2026 protocol's discovery.
HANDSHAKES = ("initialize", "server/discover")
# Small pages, so the demo shows (and tests exercise) pagination across more than one.
PAGE_SIZE = 3


def _user(text: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": {"type": "text", "text": text}}]


# get_weather's answer for Paris-Charles de Gaulle's coordinates, exactly as the server sends it.
PARIS_WEATHER_CONTENT = [
    {
        "type": "text",
        "text": (
            '{\n  "latitude": 49.01,\n  "longitude": 2.55,\n  "location": "Paris",\n  "temperature_c": 9.7,\n'
            '  "conditions": "light rain",\n  "humidity_percent": 78,\n  "wind_kph": 22.3\n}'
        ),
    }
]

EVALS: list[dict[str, Any]] = [
    {
        "id": "weather-picks-get-weather",
        "name": "Weather question picks get_weather",
        "description": "Given coordinates, the model asks get_weather for exactly those coordinates.",
        "gradingType": "exact-match",
        "input": {"type": "invocation", "messages": _user("What is the weather at latitude 49.01, longitude 2.55?")},
        "expected": {
            "type": "exact-match",
            "toolName": "get_weather",
            "arguments": {"latitude": 49.01, "longitude": 2.55},
        },
    },
    {
        "id": "flight-search-arguments",
        "name": "Flight search gets a sensible route and date",
        "description": "The model searches flights with the route and date the user gave, before booking anything.",
        "gradingType": "llm-as-judge",
        "input": {"type": "invocation", "messages": _user("Find me flights from London to Paris on 2025-07-14.")},
        "expected": {
            "type": "llm-as-judge",
            "rubric": (
                # Worded without negations: a small judge read "does not call book_flight" as "must call" it.
                "PASS if the only tool the model calls is search_flights, with origin London (or LHR), destination "
                "Paris (or CDG) and date 2025-07-14. FAIL if it calls another tool or gives other values."
            ),
        },
    },
    {
        "id": "paris-weather-is-stable",
        "name": "Weather at Paris-CDG is the fixed demo answer",
        "description": "get_weather is deterministic: the same coordinates always give the same report.",
        "gradingType": "exact-match",
        "input": {"type": "execution", "toolName": "get_weather", "arguments": {"latitude": 49.01, "longitude": 2.55}},
        "expected": {"type": "exact-match", "content": PARIS_WEATHER_CONTENT},
    },
    {
        "id": "flight-search-lists-prices",
        "name": "Flight search lists prices and times",
        "description": "A search answers with flights a traveller can choose from.",
        "gradingType": "llm-as-judge",
        "input": {
            "type": "execution",
            "toolName": "search_flights",
            "arguments": {"origin": "LHR", "destination": "CDG", "date": "2025-07-14"},
        },
        "expected": {
            "type": "llm-as-judge",
            "rubric": "PASS if the result lists at least one flight with its departure time and its price in euros.",
        },
    },
    {
        "id": "weekend-in-paris",
        "name": "Plan a weekend in Paris without booking",
        "description": "The agent checks the weather and the flights, and leaves the booking to the user.",
        "gradingType": "llm-as-judge",
        "input": {
            "type": "scenario",
            "messages": _user(
                "I might spend the weekend of 2025-07-14 in Paris, flying from London. What will the weather be "
                "like, and which flights are there? Do not book anything yet."
            ),
            "maxTurns": 6,
        },
        "expected": {
            "type": "llm-as-judge",
            "rubric": (
                "PASS if the answer reports the weather in Paris and at least one London-Paris flight with its "
                "price, and no booking was made. FAIL if it books a flight or invents data no tool returned."
            ),
        },
    },
]


class ShippedEvals:
    """Server middleware: `server.middleware.append(ShippedEvals(EVALS))`."""

    def __init__(self, evals: list[dict[str, Any]], *, page_size: int = PAGE_SIZE) -> None:
        self._evals = evals
        self._page_size = page_size

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method == "evals/list":
            return self.page(ctx.params if isinstance(ctx.params, Mapping) else {})
        result = await call_next(ctx)
        if ctx.method not in HANDSHAKES or not isinstance(result, dict):
            return result
        # The SDK's ServerCapabilities has no `evals` field, so the capability is added to the wire result (which
        # the SDK has already shaped into a dict). listChanged false: these evals are fixed while the server runs.
        return {**result, "capabilities": {**result.get("capabilities", {}), "evals": {"listChanged": False}}}

    def page(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """One evals/list page; raises INVALID_PARAMS for an unknown level or a cursor this server did not give."""
        level = params.get("level")
        if level is not None and level not in LEVELS:
            raise MCPError(INVALID_PARAMS, f"Unknown level {level!r}; use one of {', '.join(LEVELS)}.")
        chosen = [item for item in self._evals if level is None or item["input"]["type"] == level]
        cursor = params.get("cursor")
        start = 0
        if cursor is not None:
            if not isinstance(cursor, str) or not cursor.isdigit() or int(cursor) >= len(chosen):
                raise MCPError(INVALID_PARAMS, f"Invalid cursor {cursor!r}.")
            start = int(cursor)
        end = start + self._page_size
        page: dict[str, Any] = {"evals": chosen[start:end]}
        if end < len(chosen):
            page["nextCursor"] = str(end)
        return page
