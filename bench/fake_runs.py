"""Realistic fake runs for benchmarks: scenario words, tool results of realistic size, and whole run records
laid out as the columns of runs_run (for COPY)."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from typing import Any

TAGS = ["smoke", "weather", "flights", "booking", "regression", "nightly", "edge-cases", "multi-step", "auth", "slow"]
MODELS = ["evalhub-offline", "gpt-4.1-mini", "gpt-4.1", "gpt-4o", "gpt-4o-mini", "o4-mini"]
WORDS = [
    "flight",
    "fare",
    "route",
    "departure",
    "arrival",
    "gate",
    "terminal",
    "seat",
    "window",
    "aisle",
    "baggage",
    "weather",
    "forecast",
    "sunny",
    "cloudy",
    "rain",
    "wind",
    "humidity",
    "temperature",
    "pressure",
    "city",
    "airport",
    "Paris",
    "Rome",
    "Berlin",
    "Madrid",
    "Lisbon",
    "Vienna",
    "Prague",
    "Oslo",
    "hotel",
    "booking",
    "confirmed",
    "pending",
    "cancelled",
    "refund",
    "passenger",
    "adult",
    "child",
    "economy",
    "business",
    "first",
    "class",
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "for",
    "on",
    "with",
    "at",
    "from",
    "by",
]
TOOLS = ["get_weather", "search_flights", "get_forecast", "book_flight", "list_airports", "get_fare_rules"]
COLUMNS = [
    "scenario_id",
    "status",
    "stop_reason",
    "provider_id",
    "model",
    "server_id",
    "tools_hash",
    "settings",
    "started_by_id",
    "created_at",
    "started_at",
    "finished_at",
    "heartbeat_at",
    "worker",
    "cancel_requested",
    "transcript",
    "tool_calls",
    "all_tool_calls",
    "tool_names",
    "final_text",
    "model_calls",
    "input_tokens",
    "output_tokens",
    "cached_tokens",
    "cost_usd",
    "duration_ms",
    "error",
    "score",
    "passed",
    "score_reason",
]


def words(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    length = 0
    while length < chars:
        word = rng.choice(WORDS)
        out.append(word)
        length += len(word) + 1
    return " ".join(out)


def tool_result(rng: random.Random, tool: str) -> dict[str, Any]:
    data = {
        "tool": tool,
        "id": rng.randrange(10**9),
        "temperature_c": round(rng.uniform(-10, 35), 1),
        "items": [
            {"code": f"{rng.choice(WORDS)[:3].upper()}{rng.randrange(1000)}", "note": words(rng, rng.randint(20, 120))}
            for _ in range(rng.randint(1, 12))
        ],
    }
    text = json.dumps(data, indent=2)
    return {"content": [{"type": "text", "text": text}], "structuredContent": data, "isError": rng.random() < 0.03}


def record(rng: random.Random, prompt: str, model: str, base_ms: int) -> dict[str, Any]:
    """One run's record in the recorder's shapes (TranscriptData, EvalToolCall[], model calls)."""
    calls: list[dict[str, Any]] = []
    steps: list[dict[str, Any]] = []
    model_calls: list[dict[str, Any]] = []
    for index in range(rng.choices(range(9), weights=[5, 30, 20, 15, 10, 8, 5, 4, 3])[0]):
        tool = rng.choice(TOOLS)
        args = {"latitude": round(rng.uniform(-90, 90), 2), "longitude": round(rng.uniform(-180, 180), 2)}
        result = tool_result(rng, tool)
        call = {
            "toolName": tool,
            "args": args,
            "result": result,
            "timestamp": base_ms + index * 900,
            "durationMs": rng.randint(2, 900),
            "isError": result["isError"],
            "nestedCalls": [],
            "schemaValidation": {"valid": True, "message": ""},
        }
        calls.append(call)
        steps.append(
            {
                "text": words(rng, rng.randint(0, 200)),
                "finishReason": "tool_calls",
                "toolCalls": [{"toolName": tool, "args": args}],
                "toolResults": [{"toolName": tool, "result": result}],
            }
        )
    final = words(rng, rng.randint(80, 800))
    steps.append({"text": final, "finishReason": "stop"})
    input_tokens = output_tokens = 0
    cost = Decimal(0)
    for number in range(1, len(steps) + 1):
        tokens_in, tokens_out = rng.randint(800, 6000), rng.randint(10, 400)
        input_tokens, output_tokens = input_tokens + tokens_in, output_tokens + tokens_out
        price = Decimal(0) if model == "evalhub-offline" else Decimal(tokens_in * 2 + tokens_out * 8) / 1_000_000
        cost += price
        model_calls.append(
            {
                "step": number,
                "model": model,
                "input_tokens": tokens_in,
                "output_tokens": tokens_out,
                "cached_tokens": 0,
                "cost_usd": str(price),
                "cost_source": "free" if model == "evalhub-offline" else "genai-prices",
                "latency_ms": rng.randint(3, 4000),
                "attempts": 1,
                "finish_reason": "tool_calls" if number < len(steps) else "stop",
            }
        )
    return {
        "transcript": {"prompt": prompt, "steps": steps, "finalText": final},
        "tool_calls": calls,
        "tool_names": [call["toolName"] for call in calls],
        "final_text": final,
        "model_calls": model_calls,
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cost_usd": cost,
    }
