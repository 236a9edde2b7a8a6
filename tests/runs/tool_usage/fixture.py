"""Eight runs with known answers for the tool statistics (the expected figures are worked out in the tests)."""

from __future__ import annotations

from typing import Any

from runs.tool_usage.facts import RunFacts, run_facts

NUMBER = {"type": "number"}
TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_weather",
        "inputSchema": {
            "type": "object",
            "properties": {"latitude": {"type": "number", "minimum": -90, "maximum": 90}, "longitude": NUMBER},
            "required": ["latitude", "longitude"],
        },
    },
    {
        "name": "search_flights",
        "inputSchema": {
            "type": "object",
            "properties": {"origin": {"type": "string"}, "destination": {"type": "string"}},
            "required": ["origin", "destination"],
        },
    },
    {
        "name": "book_flight",
        "inputSchema": {
            "type": "object",
            "properties": {"origin": {"type": "string"}, "passengers": {"type": "integer", "minimum": 1}},
            "required": ["origin", "passengers"],
            "additionalProperties": False,
        },
    },
    {"name": "cancel_booking", "inputSchema": {"type": "object"}},
]
NAMES = [tool["name"] for tool in TOOLS]


def call(name: str, args: dict[str, Any], *, error: bool = False, **extra: Any) -> dict[str, Any]:
    return {"toolName": name, "args": args, "isError": error, "result": {}, **extra}


WEATHER = call("get_weather", {"latitude": 48.85, "longitude": 2.35})
SEARCH = call("search_flights", {"origin": "CDG", "destination": "LHR"})


def fixture_runs() -> list[RunFacts]:
    plans: list[tuple[str, list[str], list[dict[str, Any]]]] = [
        ("Weather", ["get_weather"], [WEATHER]),  # 1: right tool
        ("Weather", ["get_weather"], [SEARCH]),  # 2: wrong tool
        ("Weather", ["get_weather"], []),  # 3: nothing called
        # 4: right tool, bad arguments, and the server said so
        ("Weather", ["get_weather"], [call("get_weather", {"latitude": 95, "longitude": "east"}, error=True)]),
        # 5: both expected tools; the booking misses an argument and has one the schema does not allow
        (
            "Book",
            ["search_flights", "book_flight"],
            [SEARCH, call("book_flight", {"origin": "CDG", "seats": 2}, error=True)],
        ),
        ("Book", ["search_flights", "book_flight"], [SEARCH]),  # 6: the booking never made
        # 7: code mode: the run_code call itself is not a server tool, the call its program made is
        ("Weather", ["get_weather"], [call("run_code", {"code": "…"}, nestedCalls=[WEATHER]), WEATHER]),
        # 8: no expected tools; arguments that were not JSON
        ("Free", [], [call("get_weather", {}, error=True, rawArguments="{lat")]),
    ]
    return [
        run_facts(run_id=index, scenario=scenario, expected_tools=expected, all_tool_calls=calls, snapshot_tools=TOOLS)
        for index, (scenario, expected, calls) in enumerate(plans, start=1)
    ]
