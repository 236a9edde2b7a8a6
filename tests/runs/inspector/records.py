"""Hand-built run records in the recorder's shapes (and the agreed shapes of conversations and code mode), for
the run page's tests: three steps, a failed call, structured content, a long text, an image, a resource, a
program with nested calls, and a `<script>` where a tool's text goes."""

from __future__ import annotations

from typing import Any

# One transparent pixel: an image block previewed from its own bytes.
PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
HOSTILE = '<script>window.pwned = true</script><img src=x onerror="window.pwned = true">'
LONG_TEXT = "Forecast line. " * 200  # 3,000 characters: folded behind "show all"
WEATHER = {"latitude": 48.85, "longitude": 2.35, "location": "Paris", "temperature_c": 18.5, "sky": "clear"}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def call(name: str, args: dict[str, Any], result: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "toolName": name,
        "args": args,
        "result": result,
        "timestamp": 1_754_000_000_000,
        "durationMs": 40,
        "isError": bool(result.get("isError")),
        "nestedCalls": [],
        **extra,
    }


def multi_step_fields() -> dict[str, Any]:
    """Run fields: step 1 fails a call and succeeds one, step 2 runs a program, step 3 answers."""
    failed = call(
        "get_weather",
        {"latitude": 91, "longitude": 2.35},
        {"content": [text("Coordinates out of range: latitude 91, longitude 2.35.")], "isError": True},
    )
    weather = call(
        "get_weather",
        {"latitude": 48.85, "longitude": 2.35},
        {
            "content": [
                text(
                    '{"latitude": 48.85, "longitude": 2.35, "location": "Paris", "temperature_c": 18.5, "sky": "clear"}'
                )
            ],
            "structuredContent": WEATHER,
            "isError": False,
        },
        schemaValidation={"valid": True, "message": ""},
        durationMs=120,
    )
    nested = [
        call("search_flights", {"origin": "PAR", "destination": "NYC"}, {"content": [text(LONG_TEXT)]}),
        call(
            "get_map",
            {"city": "Paris"},
            {
                "content": [
                    {"type": "image", "data": PIXEL, "mimeType": "image/png"},
                    {"type": "image", "data": "PHN2Zz48L3N2Zz4=", "mimeType": "image/svg+xml"},
                    {
                        "type": "resource",
                        "resource": {"uri": "travel://airports", "mimeType": "text/plain", "text": HOSTILE},
                    },
                    {"type": "resource_link", "uri": "https://example.com/map", "name": "Full map"},
                ]
            },
            schemaValidation={"valid": False, "message": "structuredContent at (root): 'city' is a required property"},
        ),
    ]
    program = call(
        "run_code",
        {"code": 'const w = await tools.search_flights({origin: "PAR"});\nreturn w;'},
        {"content": [text(HOSTILE)]},
        console=["searching", HOSTILE],
        returnValue={"flights": 2},
        nestedCalls=nested,
        durationMs=300,
        userTurn=1,
    )
    steps = [
        {
            "text": "Let me look that up.",
            "finishReason": "tool_calls",
            "toolCalls": [
                {"toolName": "get_weather", "args": failed["args"]},
                {"toolName": "get_weather", "args": weather["args"]},
            ],
            "toolResults": [
                {"toolName": "get_weather", "result": failed["result"]},
                {"toolName": "get_weather", "result": weather["result"]},
            ],
        },
        {
            "text": "",
            "finishReason": "tool_calls",
            "toolCalls": [{"toolName": "run_code", "args": program["args"]}],
            "toolResults": [{"toolName": "run_code", "result": program["result"]}],
        },
        {"text": "It is 18.5 °C and clear in Paris.", "finishReason": "stop"},
    ]

    def model_call(step: int, latency: int) -> dict[str, Any]:
        return {
            "step": step,
            "model": "gpt-4o",
            "input_tokens": 100,
            "output_tokens": 10,
            "cached_tokens": 0,
            "cost_usd": "0.001",
            "cost_source": "override",
            "latency_ms": latency,
            "attempts": 1,
            "finish_reason": steps[step - 1]["finishReason"],
        }

    return {
        "transcript": {
            "prompt": "Weather in Paris?",
            "userTurns": [
                {"index": 0, "source": "prompt", "text": "Weather in Paris?", "firstStep": 0},
                {"index": 1, "source": "simulated", "text": "And flights?", "firstStep": 1},
            ],
            "steps": steps,
            "finalText": steps[2]["text"],
        },
        "tool_calls": [failed, weather, program],
        "all_tool_calls": [failed, weather, program, *nested],
        "tool_names": ["get_weather", "get_weather", "run_code"],
        "model_calls": [model_call(1, 500), model_call(2, 400), model_call(3, 100)],
        "cost_usd": "0.003",
        "input_tokens": 300,
        "output_tokens": 30,
        "duration_ms": 2000,
        "final_text": steps[2]["text"],
        "stop_reason": "completed",
    }
