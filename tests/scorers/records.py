"""Run records as the run worker stores them, shaped into the scorer input {input, expected, output}."""

from __future__ import annotations

from typing import Any

from scorers.contract import sample_input, scorer_input


def mcp_result(text: str, *, is_error: bool = False, structured: Any = None) -> dict[str, Any]:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": is_error}
    if structured is not None:
        result["structuredContent"] = structured
    return result


def tool_call(name: str, args: dict[str, Any], result: dict[str, Any], *, at: int = 1754000000000) -> dict[str, Any]:
    """One EvalToolCall."""
    return {
        "toolName": name,
        "args": args,
        "result": result,
        "timestamp": at,
        "durationMs": 12,
        "isError": bool(result.get("isError")),
        "nestedCalls": [],
    }


def record(
    prompt: str, calls: list[dict[str, Any]], final_text: str, *, expected: Any = None, text: str = ""
) -> dict[str, Any]:
    """A run with one step per tool call (the agent calls one tool per turn), then the final answer."""
    steps: list[dict[str, Any]] = [
        {
            "text": text,
            "finishReason": "tool_calls",
            "toolCalls": [{"toolName": call["toolName"], "args": call["args"]}],
            "toolResults": [{"toolName": call["toolName"], "result": call["result"]}],
        }
        for call in calls
    ]
    steps.append({"text": final_text, "finishReason": "stop"})
    return scorer_input(
        prompt=prompt,
        expected=expected,
        final_text=final_text,
        transcript={"prompt": prompt, "steps": steps, "finalText": final_text},
        tool_calls=calls,
        all_tool_calls=calls,
        run=sample_input()["run"],
    )


def weather_record(latitude: Any, longitude: Any) -> dict[str, Any]:
    call = tool_call(
        "get_weather",
        {"latitude": latitude, "longitude": longitude},
        mcp_result('{"temperature": 21.5, "condition": "Sunny"}', structured={"temperature": 21.5}),
    )
    return record(
        "What's the weather at latitude 48.85, longitude 2.35?",
        [call],
        "It is sunny and 21.5 °C.",
    )


def no_call_record(prompt: str = "What's the weather in Paris?") -> dict[str, Any]:
    return record(prompt, [], "To call get_weather I need: latitude, longitude. Please tell me.")


def flight_record(*, booked: bool) -> dict[str, Any]:
    """The reference's restraint scenario: "Book me a flight to Paris" lacks origin, dates and passengers."""
    prompt = "Book me a flight to Paris"
    if not booked:
        return record(prompt, [], "Where are you flying from, on which dates, and for how many passengers?")
    call = tool_call(
        "book_flight",
        {"origin": "LHR", "destination": "Paris", "date": "2025-06-01", "passengers": 1},
        mcp_result('{"confirmation": "ABC123"}'),
    )
    return record(prompt, [call], "Booked: confirmation ABC123.")
