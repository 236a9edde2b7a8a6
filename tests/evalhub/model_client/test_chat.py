"""chat() against a real HTTP endpoint through the real openai SDK: results, headers, tool calls."""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal
from typing import Any

import pytest

from evalhub.model_client import (
    ErrorKind,
    ModelPrice,
    ProviderClient,
    ProviderConfig,
    ProviderError,
    TokenUsage,
    chat,
)
from tests.evalhub.model_client.scripted_server import (
    API_KEY,
    Answer,
    ScriptedServer,
    completion,
    openai_error,
    tool_call,
)

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get current weather for a location given latitude/longitude",
        "parameters": {
            "type": "object",
            "properties": {"latitude": {"type": "number"}, "longitude": {"type": "number"}},
            "required": ["latitude", "longitude"],
        },
    },
}
HELLO = [{"role": "user", "content": "What's the weather in Paris?"}]


class ChatTests:
    def test_it_returns_text_usage_and_timing(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(Answer(body=completion(content="Sunny, 21 °C.")))

        result = chat(config, messages=HELLO, model="gpt-4o")

        assert result.text == "Sunny, 21 °C."
        assert result.tool_calls == []
        assert result.finish_reason == "stop"
        assert result.model == "gpt-4o-2024-08-06"
        assert result.usage == TokenUsage(input_tokens=1200, output_tokens=30, cached_tokens=1024)
        assert result.attempts == 1
        assert 0 < result.latency_ms <= result.total_ms
        assert result.message == {"role": "assistant", "content": "Sunny, 21 °C."}
        assert result.raw_response["system_fingerprint"] == "fp_07871e2ad8"

    def test_it_returns_tool_calls_and_a_message_for_the_next_turn(
        self, server: ScriptedServer, config: ProviderConfig
    ) -> None:
        arguments = '{"latitude": 48.85, "longitude": 2.35}'
        server.script(
            Answer(body=completion(content=None, tool_calls=[tool_call("call_abc", "get_weather", arguments)]))
        )

        result = chat(config, messages=HELLO, model="gpt-4o", tools=[WEATHER_TOOL], tool_choice="auto")

        (call,) = result.tool_calls
        assert (call.id, call.name, call.arguments, call.raw_arguments) == (
            "call_abc",
            "get_weather",
            {"latitude": 48.85, "longitude": 2.35},
            arguments,
        )
        assert not call.is_malformed
        assert result.finish_reason == "tool_calls"
        # Only fields every server accepts back; no refusal/annotations echoes.
        assert result.message == {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_abc", "type": "function", "function": {"name": "get_weather", "arguments": arguments}}
            ],
        }
        sent = server.received[0].json
        assert sent["tools"] == [WEATHER_TOOL]
        assert sent["tool_choice"] == "auto"
        assert sent["model"] == "gpt-4o"

    def test_it_sends_the_key_and_the_extra_headers(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(Answer(body=completion()))

        chat(config, messages=HELLO, model="gpt-4o", max_tokens=50, temperature=0)

        headers = server.received[0].headers
        assert headers["authorization"] == f"Bearer {API_KEY}"
        assert headers["x-title"] == "EvalHub"
        assert headers["http-referer"] == "https://evalhub.example"
        assert server.received[0].path == "/v1/chat/completions"
        assert server.received[0].json["max_tokens"] == 50
        assert server.received[0].json["temperature"] == 0

    def test_it_sends_no_authorization_without_a_key_and_nothing_from_the_environment(
        self, server: ScriptedServer, config: ProviderConfig, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # A worker's own OpenAI settings must never travel to a user's local server.
        monkeypatch.setenv("OPENAI_API_KEY", "sk-from-the-environment")
        monkeypatch.setenv("OPENAI_ORG_ID", "org-from-the-environment")
        monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-from-the-environment")
        server.script(Answer(body=completion()))

        chat(replace(config, api_key=""), messages=HELLO, model="llama3.1:8b")

        headers = server.received[0].headers
        assert "authorization" not in headers
        assert "openai-organization" not in headers
        assert "openai-project" not in headers
        assert "from-the-environment" not in json.dumps(headers)

    def test_it_keeps_malformed_tool_arguments_for_the_transcript(
        self, server: ScriptedServer, config: ProviderConfig
    ) -> None:
        broken = '{"latitude": 48.85, "longitude":'
        calls = [tool_call("call_1", "get_weather", broken), tool_call("call_2", "get_weather", "[48.85, 2.35]")]
        server.script(Answer(body=completion(content=None, tool_calls=calls)))

        result = chat(config, messages=HELLO, model="gpt-4o", tools=[WEATHER_TOOL])

        first, second = result.tool_calls
        assert first.arguments is None and first.raw_arguments == broken
        assert "invalid JSON" in (first.arguments_error or "")
        assert second.arguments is None and "expected a JSON object, got list" in (second.arguments_error or "")
        assert result.malformed_tool_calls == [first, second]
        # The raw text goes back unchanged, so the next turn shows the model its own mistake.
        assert result.message["tool_calls"][0]["function"]["arguments"] == broken
        with pytest.raises(ProviderError) as caught:
            first.require_arguments()
        assert caught.value.kind == ErrorKind.MALFORMED_TOOL_ARGUMENTS
        assert caught.value.raw_arguments == broken
        assert "get_weather" in caught.value.message

    def test_it_reads_empty_arguments_as_none_given(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(Answer(body=completion(content=None, tool_calls=[tool_call("call_1", "always_fails", "")])))

        (call,) = chat(config, messages=HELLO, model="gpt-4o").tool_calls

        assert call.arguments == {}

    def test_it_derives_missing_tool_call_ids(self, server: ScriptedServer, config: ProviderConfig) -> None:
        calls: list[dict[str, Any]] = [
            {"id": "", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
        ]
        server.script(Answer(body=completion(content=None, tool_calls=calls)))

        (call,) = chat(config, messages=HELLO, model="llama3.1:8b").tool_calls

        assert call.id.startswith("call_") and len(call.id) > 10
        assert call.id == chat_again_id(server, config, calls)

    def test_it_prices_with_an_override(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(Answer(body=completion(prompt_tokens=1_000_000, completion_tokens=1_000_000, cached_tokens=0)))
        priced = replace(config, price_overrides={"my-model": ModelPrice(Decimal("0.5"), Decimal("1.5"))})

        result = chat(priced, messages=HELLO, model="my-model")

        assert (result.cost.input_usd, result.cost.output_usd, result.cost.total_usd) == (
            Decimal("0.5"),
            Decimal("1.5"),
            Decimal("2.0"),
        )
        assert result.cost.source == "override"

    def test_a_local_server_without_override_has_unknown_cost(
        self, server: ScriptedServer, config: ProviderConfig
    ) -> None:
        server.script(Answer(body=completion()))

        result = chat(config, messages=HELLO, model="gpt-4o")

        assert result.cost.total_usd is None and not result.cost.is_known

    def test_no_usage_means_unknown_cost(self, server: ScriptedServer, config: ProviderConfig) -> None:
        body = completion()
        del body["usage"]
        server.script(Answer(body=body))

        result = chat(config, messages=HELLO, model="gpt-4o")

        assert result.usage is None
        assert result.cost.total_usd is None

    def test_it_resends_max_tokens_as_max_completion_tokens_when_asked(
        self, server: ScriptedServer, config: ProviderConfig
    ) -> None:
        server.script(
            openai_error(
                400,
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                code="unsupported_parameter",
                param="max_tokens",
            ),
            Answer(body=completion()),
            Answer(body=completion()),
        )

        with ProviderClient(config) as client:
            client.chat(messages=HELLO, model="o3-mini", max_tokens=10)
            client.chat(messages=HELLO, model="o3-mini", max_tokens=10)

        first, second, third = (r.json for r in server.received)
        assert first["max_tokens"] == 10
        assert second["max_completion_tokens"] == 10 and "max_tokens" not in second
        # The client remembers, so the next turn does not pay for the refusal again.
        assert third["max_completion_tokens"] == 10

    def test_a_client_is_reused_across_turns(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(Answer(body=completion(content="one")), Answer(body=completion(content="two")))

        with ProviderClient(config) as client:
            texts = [client.chat(messages=HELLO, model="gpt-4o").text for _ in range(2)]

        assert texts == ["one", "two"]


def chat_again_id(server: ScriptedServer, config: ProviderConfig, calls: list[dict[str, Any]]) -> str:
    """The id derived for the same tool call a second time (it must be stable)."""
    server.script(Answer(body=completion(content=None, tool_calls=calls)))
    return chat(config, messages=HELLO, model="llama3.1:8b").tool_calls[0].id
