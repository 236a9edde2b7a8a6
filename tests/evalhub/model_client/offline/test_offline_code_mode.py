"""The offline model in code mode: it reads the typed API of run_code back and writes a program (pure)."""

from __future__ import annotations

import json
from typing import Any

from evalhub.model_client.offline.model import handle_chat_completion
from runs.code_mode.typed_api import run_code_tool

TOOLS = [
    {
        "name": "get_weather",
        "description": "Get the current weather at a point given by latitude and longitude.",
        "inputSchema": {
            "type": "object",
            "properties": {"latitude": {"type": "number"}, "longitude": {"type": "number"}},
            "required": ["latitude", "longitude"],
        },
        "outputSchema": {"type": "object", "properties": {"location": {"type": "string"}}},
    },
    {
        "name": "search-flights",
        "description": "Search flights between two airports on a date.",
        "inputSchema": {
            "type": "object",
            "properties": {"origin": {"type": "string"}, "destination": {"type": "string"}},
            "required": ["origin", "destination"],
        },
    },
]


def ask(messages: list[dict[str, Any]]) -> dict[str, Any]:
    tool = run_code_tool(TOOLS, max_calls=20)
    function = {"name": tool["name"], "description": tool["description"], "parameters": tool["inputSchema"]}
    request = {"model": "evalhub-offline", "messages": messages, "tools": [{"type": "function", "function": function}]}
    message: dict[str, Any] = handle_chat_completion(request)["choices"][0]["message"]
    return message


class OfflineCodeModeTests:
    def test_it_writes_a_program_calling_the_tool_it_would_call_directly(self) -> None:
        message = ask([{"role": "user", "content": "What's the weather at latitude 48.85, longitude 2.35?"}])

        (call,) = message["tool_calls"]
        assert call["function"]["name"] == "run_code"
        code = json.loads(call["function"]["arguments"])["code"]
        assert code.splitlines()[0] == 'const result = await tools.get_weather({"latitude": 48.85, "longitude": 2.35});'
        # Two lines: a log of the result would show the same JSON twice on the run page (issue 25).
        assert code.splitlines()[1:] == ["return result;"]

    def test_an_odd_tool_name_is_called_with_bracket_access(self) -> None:
        message = ask([{"role": "user", "content": "Search flights from Paris to Rome"}])

        code = json.loads(message["tool_calls"][0]["function"]["arguments"])["code"]
        assert code.startswith('const result = await tools["search-flights"]({"origin": "Paris", "destination": "Rome"')

    def test_after_the_program_ran_it_answers_from_the_return_value(self) -> None:
        first = ask([{"role": "user", "content": "What's the weather at latitude 48.85, longitude 2.35?"}])
        history = [
            {"role": "user", "content": "What's the weather at latitude 48.85, longitude 2.35?"},
            first,
            {
                "role": "tool",
                "tool_call_id": first["tool_calls"][0]["id"],
                "content": 'Console:\n{"location":"Paris"}\n\nReturn value: {"location":"Paris"}',
            },
        ]

        final = ask(history)

        assert final.get("tool_calls") is None
        assert "Paris" in final["content"] and "get_weather" in final["content"]

    def test_without_run_code_nothing_changes(self) -> None:
        request = {"model": "evalhub-offline", "messages": [{"role": "user", "content": "Hello"}]}
        assert handle_chat_completion(request)["choices"][0]["message"].get("tool_calls") is None
