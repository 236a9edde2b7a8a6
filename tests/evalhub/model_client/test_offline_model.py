"""The offline model: the wire format, determinism, JSON answers and tool choice, through the real SDK."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx
import jsonschema
import pytest

from evalhub.model_client import OFFLINE_BASE_URL, ErrorKind, ProviderConfig, ProviderError, chat, offline_config
from evalhub.model_client.offline import OfflineTransport, handle_chat_completion
from evalhub.model_client.offline.model import OfflineModelError
from tests.evalhub.model_client.offline_table import load_toolsets

MODEL = "evalhub-offline"
DEMO = load_toolsets()["demo"]
JUDGE_SCHEMA = {
    "type": "object",
    "properties": {
        "label": {"type": "string", "enum": ["pass", "fail", "partial"]},
        "reason": {"type": "string"},
    },
    "required": ["label", "reason"],
    "additionalProperties": False,
}


def ask(prompt: str, **kwargs: Any) -> dict[str, Any]:
    return handle_chat_completion({"model": MODEL, "messages": [{"role": "user", "content": prompt}], **kwargs})


class OfflineWireFormatTests:
    def test_the_same_request_gets_the_same_response(self) -> None:
        first = ask("Book a flight from Paris to Rome on 2025-06-01 for 2 passengers", tools=DEMO)
        second = ask("Book a flight from Paris to Rome on 2025-06-01 for 2 passengers", tools=DEMO)

        assert json.dumps(first) == json.dumps(second)
        assert first["created"] == 0

    def test_tool_call_ids_are_hashes_of_the_request(self) -> None:
        paris = ask("Wait 5 seconds", tools=DEMO)["choices"][0]["message"]["tool_calls"][0]["id"]
        longer = ask("Wait 6 seconds", tools=DEMO)["choices"][0]["message"]["tool_calls"][0]["id"]

        assert paris.startswith("call_") and len(paris) == 29
        assert paris != longer

    def test_it_speaks_chat_completions(self) -> None:
        response = ask("Wait 5 seconds", tools=DEMO)

        assert response["object"] == "chat.completion"
        assert response["model"] == MODEL
        (choice,) = response["choices"]
        assert choice["finish_reason"] == "tool_calls"
        (call,) = choice["message"]["tool_calls"]
        assert call["type"] == "function"
        assert json.loads(call["function"]["arguments"]) == {"seconds": 5}

    def test_usage_follows_the_documented_rule(self) -> None:
        response = ask("Hello there")  # 11 characters → 3 tokens

        text = response["choices"][0]["message"]["content"]
        assert response["usage"]["prompt_tokens"] == 3
        assert response["usage"]["completion_tokens"] == -(-len(text) // 4)
        assert response["usage"]["prompt_tokens_details"] == {"cached_tokens": 0}

    def test_tools_count_as_input(self) -> None:
        assert ask("Hello there", tools=DEMO)["usage"]["prompt_tokens"] > 3 + 100

    def test_another_model_name_is_not_found(self) -> None:
        with pytest.raises(OfflineModelError) as caught:
            handle_chat_completion({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]})

        assert caught.value.status == 404
        assert caught.value.body()["error"]["code"] == "model_not_found"

    def test_streaming_and_empty_messages_are_refused(self) -> None:
        for request in (
            {"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "stream": True},
            {"model": MODEL, "messages": []},
            ["not", "an", "object"],
        ):
            with pytest.raises(OfflineModelError) as caught:
                handle_chat_completion(request)
            assert caught.value.status == 400

    def test_a_long_answer_is_cut_at_max_tokens(self) -> None:
        response = ask("Tell me everything", max_tokens=3)

        assert response["choices"][0]["finish_reason"] == "length"
        assert len(response["choices"][0]["message"]["content"]) == 12

    def test_the_transport_lists_the_model_and_rejects_other_paths(self) -> None:
        with httpx.Client(transport=OfflineTransport(), base_url=OFFLINE_BASE_URL) as client:
            assert client.get("/models").json()["data"][0]["id"] == MODEL
            assert client.post("/embeddings", json={}).status_code == 404
            assert client.post("/chat/completions", content=b"{not json").status_code == 400


class OfflineAnswerTests:
    def test_a_judge_schema_gets_a_valid_verdict(self) -> None:
        result = chat(
            offline_config(),
            messages=[{"role": "user", "content": "Did the agent book the flight? Transcript: ..."}],
            model=MODEL,
            response_format={"type": "json_schema", "json_schema": {"name": "verdict", "schema": JUDGE_SCHEMA}},
        )

        verdict = json.loads(result.text)
        jsonschema.validate(verdict, JUDGE_SCHEMA)
        assert verdict["label"] == "pass"
        assert verdict["reason"]

    def test_a_richer_schema_is_filled_validly(self) -> None:
        schema = {
            "type": "object",
            "$defs": {"step": {"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}}}},
            "properties": {
                "score": {"type": "number", "minimum": 0.5, "maximum": 1},
                "tags": {"type": "array", "items": {"type": "string", "minLength": 2}, "minItems": 2},
                "when": {"type": "string", "format": "date-time"},
                "note": {"anyOf": [{"type": "null"}, {"type": "string"}]},
                "steps": {"type": "array", "items": {"$ref": "#/$defs/step"}, "minItems": 1},
                "ok": {"type": "boolean"},
                "kind": {"const": "review"},
            },
            "required": ["score", "tags", "when", "note", "steps", "ok", "kind"],
        }

        response = ask("Review", response_format={"type": "json_schema", "json_schema": {"schema": schema}})

        value = json.loads(response["choices"][0]["message"]["content"])
        jsonschema.validate(value, schema)
        assert value["steps"] == [{"n": 1}]

    def test_json_object_mode_gives_an_object(self) -> None:
        response = ask("Hi", response_format={"type": "json_object"})

        assert isinstance(json.loads(response["choices"][0]["message"]["content"]), dict)

    def test_without_tools_it_answers_briefly(self) -> None:
        text = ask("What is MCP?")["choices"][0]["message"]["content"]

        assert "EvalHub offline model" in text and '"What is MCP?"' in text

    def test_tool_choice_none_never_calls(self) -> None:
        response = ask("Wait 5 seconds", tools=DEMO, tool_choice="none")

        assert "tool_calls" not in response["choices"][0]["message"]

    def test_tool_choice_required_calls_the_best_tool(self) -> None:
        message = ask("Tell me a joke", tools=DEMO, tool_choice="required")["choices"][0]["message"]

        assert len(message["tool_calls"]) == 1

    def test_a_named_tool_choice_is_called(self) -> None:
        choice = {"type": "function", "function": {"name": "wait"}}

        message = ask("Book a flight in 3 seconds", tools=DEMO, tool_choice=choice)["choices"][0]["message"]

        assert message["tool_calls"][0]["function"]["name"] == "wait"

    def test_a_title_counts_more_than_a_description(self) -> None:
        tools = [
            {"type": "function", "function": {"name": "t1", "description": "Shows the forecast summary"}},
            {"type": "function", "function": {"name": "t2", "title": "Forecast summary", "description": "Shows it"}},
        ]

        message = ask("Give me the forecast summary", tools=tools)["choices"][0]["message"]

        assert message["tool_calls"][0]["function"]["name"] == "t2"

    def test_a_tool_error_is_reported_and_stops_the_plan(self) -> None:
        call = {"id": "c1", "type": "function", "function": {"name": "always_fails", "arguments": "{}"}}
        result = {"isError": True, "content": [{"type": "text", "text": "boom: the tool always fails"}]}
        messages = [
            {"role": "user", "content": "Call always_fails and then wait 1 second"},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps(result)},
        ]

        response = handle_chat_completion({"model": MODEL, "messages": messages, "tools": DEMO})

        text = response["choices"][0]["message"]["content"]
        assert "always_fails failed: boom: the tool always fails" in text
        assert "did not call wait" in text


class OfflineThroughTheSdkTests:
    def test_the_offline_base_url_needs_no_transport_argument(self) -> None:
        config = ProviderConfig(name="Offline", base_url=OFFLINE_BASE_URL)

        result = chat(config, messages=[{"role": "user", "content": "Wait 2 seconds"}], model=MODEL, tools=DEMO)

        assert result.tool_calls[0].arguments == {"seconds": 2}
        assert result.cost.total_usd == Decimal(0) and result.cost.source == "free"
        assert result.usage is not None and result.usage.input_tokens > 0

    def test_a_wrong_model_name_is_the_usual_error(self) -> None:
        with pytest.raises(ProviderError) as caught:
            chat(offline_config(), messages=[{"role": "user", "content": "hi"}], model="gpt-4o")

        assert caught.value.kind == ErrorKind.MODEL_NOT_FOUND
        assert caught.value.message == f"model 'gpt-4o' not found at {OFFLINE_BASE_URL} — check the model name"
