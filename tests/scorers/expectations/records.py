"""Run records for expectation tests: the scorer record `{input, expected, output, run}` of small realistic runs."""

from __future__ import annotations

from typing import Any

from scorers.contract import scorer_input

PARIS = {"latitude": 48.85, "longitude": 2.35}
PAR_NYC = {"origin": "PAR", "destination": "NYC"}


def result(text: str, *, structured: Any = None, is_error: bool = False) -> dict[str, Any]:
    """An MCP CallToolResult."""
    value: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": is_error}
    if structured is not None:
        value["structuredContent"] = structured
    return value


def call(
    tool: str,
    args: Any,
    returned: dict[str, Any] | None = None,
    *,
    schema_validation: dict[str, Any] | None = None,
    user_turn: int | None = None,
) -> dict[str, Any]:
    """One EvalToolCall as the recorder stores it."""
    returned = returned if returned is not None else result("ok")
    recorded: dict[str, Any] = {
        "toolName": tool,
        "args": args,
        "result": returned,
        "timestamp": 1754000000000,
        "durationMs": 12,
        "isError": bool(returned.get("isError")),
        "nestedCalls": [],
    }
    if schema_validation is not None:
        recorded["schemaValidation"] = schema_validation
    if user_turn is not None:
        recorded["userTurn"] = user_turn
    return recorded


def weather_call(args: Any = None, **kwargs: Any) -> dict[str, Any]:
    forecast = result('{"temperature": 21.5, "condition": "Sunny"}', structured={"temperature": 21.5, "unit": "C"})
    return call("get_weather", PARIS if args is None else args, forecast, **kwargs)


def flights_call(args: Any = None, **kwargs: Any) -> dict[str, Any]:
    flights = result('[{"flight": "AF006", "price": 512}]', structured={"flights": [{"flight": "AF006", "price": 512}]})
    return call("search_flights", PAR_NYC if args is None else args, flights, **kwargs)


def run_info(**overrides: Any) -> dict[str, Any]:
    info: dict[str, Any] = {
        "model": "gpt-4o-mini",
        "stopReason": "completed",
        "durationMs": 5400,
        "turns": 3,
        "usage": {"inputTokens": 1800, "outputTokens": 200, "totalTokens": 2000},
        "costUsd": 0.0042,
    }
    return info | overrides


def record(
    calls: list[dict[str, Any]],
    answer: str = "It is sunny in Paris (21.5 °C). The cheapest flight to New York is AF006 at 512 €.",
    *,
    nested: list[dict[str, Any]] | None = None,
    steps: list[dict[str, Any]] | None = None,
    run: dict[str, Any] | None = None,
    prompt: str = "What's the weather in Paris, and find me a flight from Paris to New York.",
) -> dict[str, Any]:
    """A run that makes `calls` one per step, then answers; `nested` are calls the last one made (a program's), as
    the recorder keeps them: in its nestedCalls, and in allToolCalls right after it."""
    if steps is None:
        steps = [
            {
                "text": "",
                "finishReason": "tool_calls",
                "toolCalls": [{"toolName": c["toolName"], "args": c["args"]}],
                "toolResults": [{"toolName": c["toolName"], "result": c["result"]}],
            }
            for c in calls
        ] + [{"text": answer, "finishReason": "stop"}]
    top_level = [*calls[:-1], {**calls[-1], "nestedCalls": nested}] if nested else calls
    scorer_record = scorer_input(
        prompt=prompt,
        expected=None,
        final_text=answer,
        transcript={"prompt": prompt, "steps": steps, "finalText": answer},
        tool_calls=top_level,
        all_tool_calls=[*top_level, *(nested or [])],
        run=run_info() if run is None else run,
    )
    return scorer_record


def travel_record(**kwargs: Any) -> dict[str, Any]:
    """The demo travel run: get_weather(latitude=48.85, longitude=2.35), then search_flights(PAR → NYC)."""
    return record([weather_call(), flights_call()], **kwargs)
