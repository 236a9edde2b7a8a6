"""Realistic fake runs for benchmarks: scenario words, tool results of realistic size, whole run records, and a
COPY loader that writes every column runs_run has."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Iterator
from datetime import timedelta
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


ACTIVE = ("queued", "running")
RECORD_FIELDS = (
    "transcript",
    "tool_calls",
    "tool_names",
    "final_text",
    "model_calls",
    "input_tokens",
    "output_tokens",
    "cost_usd",
)
ERRORS = [
    {"step": "model call 2", "kind": "timeout", "message": "The model timed out."},
    {"step": "connect", "kind": "server_exited", "message": "The server exited before answering initialize."},
]


def history(
    rng: random.Random, runs: int, scenarios: list[Any], pool: list[dict[str, Any]], user: int, provider: int, now: Any
) -> Iterator[dict[str, Any]]:
    """`runs` runs over 180 days before `now`, outside experiments, as fields of runs_run (copy_runs fills the rest):
    ~88% done / 7% error / 5% cancelled, the last 10 queued and running, verdicts as the rule gives them."""
    from runs.verdict.errors import error_cause

    span = timedelta(days=180).total_seconds()
    settings = {
        scenario.pk: json.dumps(
            {
                "prompt": scenario.prompt,
                "system_prompt": "",
                "max_turns": 10,
                "max_tool_calls": 25,
                "time_limit_seconds": 300,
                "expected_tools": scenario.expected_tools,
                "expected": None,
                "pass_threshold": 0.7,
            }
        )
        for scenario in scenarios
    }
    for index in range(runs):
        scenario = rng.choice(scenarios)
        created = now - timedelta(seconds=span * (1 - index / runs) + 60)
        recent = runs - index
        status = (
            "queued"
            if recent <= 5
            else "running"
            if recent <= 10
            else rng.choices(["done", "error", "cancelled"], weights=[88, 7, 5])[0]
        )
        item = rng.choice(pool) if status != "queued" else None
        duration = rng.randint(800, 60_000)
        started_at = created + timedelta(milliseconds=rng.randint(20, 3000)) if status != "queued" else None
        finished = started_at + timedelta(milliseconds=duration) if started_at and status not in ACTIVE else None
        row: dict[str, Any] = {
            "scenario_id": scenario.pk,
            "status": status,
            "stop_reason": {"done": "completed", "error": "error", "cancelled": "cancelled"}.get(status, ""),
            "provider_id": provider,
            "model": scenario.model if rng.random() < 0.8 else rng.choice(MODELS),
            "server_id": scenario.server_id,
            "settings": settings[scenario.pk],
            "started_by_id": user,
            "created_at": created,
            "started_at": started_at,
            "finished_at": finished,
            # Running rows beat "in the future" so the page's reaper leaves them running while we measure.
            "heartbeat_at": now + timedelta(days=1) if status == "running" else finished,
            "worker": "celery@bench" if started_at else "",
            "phase": "model call 2" if status == "running" else "",
            "duration_ms": duration if finished else None,
        }
        if item:
            row.update({key: item[key] for key in RECORD_FIELDS})
            row["all_tool_calls"] = item["tool_calls"]
        else:
            row["transcript"] = json.dumps({"prompt": scenario.prompt, "steps": []})
        if status == "done":
            score = rng.choice([0.0, 0.33, 0.5, 0.67, 1.0, 1.0, 1.0, 1.0])
            passed = score >= 0.7
            row.update(score=score, passed=passed, verdict="pass" if passed else "fail")
            row["score_reason"] = "All expected tools were called." if passed else ""
            if not passed:
                row.update(failure_cause="agent", failure_reason=f"agent: the score {score:.2f} is below 0.70")
        elif status == "error":
            error = rng.choice(ERRORS)
            cause = error_cause(error["step"], error["kind"])
            verdict = "fail" if cause in ("server", "agent") else "inconclusive"
            row.update(error=error, verdict=verdict, failure_cause=cause, failure_reason=f"{cause}: {error['message']}")
            row["passed"] = False if verdict == "fail" else None
        yield row


def copy_runs(cursor: Any, rows: Iterable[dict[str, Any]]) -> int:
    """COPY `rows` (field name → value) into runs_run through psycopg's cursor `cursor`; return how many.

    Every concrete column of the Run model is written: a field a row leaves out gets the model's default. Django
    keeps defaults in Python, not in the schema, so a loader that names its columns by hand breaks on the next
    NOT NULL field a migration adds (it did: `phase`, then the verdict fields). JSON fields are serialised here; a
    str given for one is taken as JSON already serialised (a pool of records is dumped once, not per run).
    """
    from django.db import models

    from runs.models import Run

    fields = [field for field in Run._meta.concrete_fields if not field.primary_key]
    columns = ", ".join(field.column for field in fields)
    known = {field.name for field in fields} | {field.attname for field in fields}
    written = 0
    with cursor.copy(f"COPY runs_run ({columns}) FROM STDIN") as copy:
        for row in rows:
            unknown = set(row) - known
            if unknown:
                raise ValueError(f"runs_run has no column for {sorted(unknown)}: rename them in the bench's rows")
            values = []
            for field in fields:
                value = row[field.attname] if field.attname in row else row.get(field.name, field.get_default())
                if isinstance(field, models.JSONField) and value is not None and not isinstance(value, str):
                    value = json.dumps(value)
                values.append(value)
            copy.write_row(values)
            written += 1
    return written
