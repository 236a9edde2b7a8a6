"""The offline model as a pure function: Chat Completions request JSON → response JSON.

The rules are documented in `evalhub/model_client/offline/__init__.py`.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass
from typing import Any

from evalhub.model_client.offline import code_mode
from evalhub.model_client.offline.arguments import fill_arguments
from evalhub.model_client.offline.ranking import Tool, plan, rank
from evalhub.model_client.offline.schema_fill import example_for
from evalhub.model_client.offline.simulated_user import is_simulated_user_request, simulated_user_reply
from evalhub.model_client.offline.summary import ToolResult, content_text, read_result, summarise

OFFLINE_MODEL = "evalhub-offline"
# Bumped whenever a rule changes, so that transcripts say which rules answered.
RULES_VERSION = "evalhub-offline-3"
# How the model's question for missing arguments ends: the next user message answers it (see _request_text).
ASK_SUFFIX = "Please tell me."

NO_TOOL_MATCHES = (
    "None of the available tools fits this request, and as the EvalHub offline model "
    "(a rule-based stand-in for an LLM) I cannot answer it myself."
)
NO_TOOLS = "I am the EvalHub offline model, a rule-based stand-in for an LLM, so I cannot answer this myself."


class OfflineModelError(Exception):
    """A request the offline endpoint refuses, with the HTTP status and an OpenAI-style error body."""

    def __init__(self, status: int, message: str, *, code: str | None = None, param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code
        self.param = param

    def body(self) -> dict[str, Any]:
        kind = "invalid_request_error" if self.status < 500 else "server_error"
        return {"error": {"message": self.message, "type": kind, "param": self.param, "code": self.code}}


@dataclass(frozen=True)
class Reply:
    text: str | None = None
    tool_name: str | None = None
    arguments: dict[str, Any] | None = None


def handle_chat_completion(request_json: Any) -> dict[str, Any]:
    """Answer one POST /v1/chat/completions body. Raises OfflineModelError for a request OpenAI would
    refuse (no messages, another model, streaming)."""
    request = _validate(request_json)
    messages: list[dict[str, Any]] = [m for m in request["messages"] if isinstance(m, dict)]
    tools = [t for t in (Tool.from_openai(raw) for raw in request.get("tools") or [] if isinstance(raw, dict)) if t]
    declared = code_mode.declared_tools(tools)
    if declared is not None:
        # Code mode: decide as if the declared tools were offered, then write the call as a program.
        reply = _reply(code_mode.as_direct(messages), declared, request.get("tool_choice"), None)
        if reply.tool_name is not None:
            reply = Reply(
                tool_name=code_mode.RUN_CODE, arguments=code_mode.program(reply.tool_name, reply.arguments or {})
            )
        return _response(request, messages, reply)
    reply = _reply(messages, tools, request.get("tool_choice"), request.get("response_format"))
    return _response(request, messages, reply)


def _validate(request: Any) -> dict[str, Any]:
    if not isinstance(request, dict):
        raise OfflineModelError(400, "The request body must be a JSON object.")
    if not isinstance(request.get("messages"), list) or not request["messages"]:
        raise OfflineModelError(400, "'messages' must be a non-empty array.", param="messages")
    if request.get("model") != OFFLINE_MODEL:
        raise OfflineModelError(
            404,
            f"The model `{request.get('model')}` does not exist. This endpoint serves only `{OFFLINE_MODEL}`.",
            code="model_not_found",
            param="model",
        )
    if request.get("stream"):
        raise OfflineModelError(400, f"{OFFLINE_MODEL} does not stream; send stream=false.", param="stream")
    return request


def _reply(messages: list[dict[str, Any]], tools: list[Tool], tool_choice: Any, response_format: Any) -> Reply:
    if is_simulated_user_request(messages):
        return Reply(text=simulated_user_reply(messages))
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    request = _request_text(messages, last_user)
    called, results = _turn_so_far(messages[last_user + 1 :])
    summary = summarise(results)
    if tools and tool_choice != "none":
        reply = _next_step(tools, request, tool_choice, called, results, summary)
    elif summary:
        reply = Reply(text=summary)
    else:
        quoted = request.strip().replace("\n", " ")
        reply = Reply(text=f'{NO_TOOLS} You said: "{quoted[:120]}"' if quoted else NO_TOOLS)
    if reply.tool_name is None:
        return Reply(text=_formatted(reply.text or "", response_format))
    return reply


def _next_step(
    tools: list[Tool], request: str, tool_choice: Any, called: list[str], results: list[ToolResult], summary: str
) -> Reply:
    by_name = {tool.name: tool for tool in tools}
    forced = _forced_tool(tool_choice)
    if forced in by_name and forced not in called:
        return _call(by_name[forced], fill_arguments(by_name[forced], request).arguments)

    def fillable(tool: Tool, text: str) -> bool:
        return not fill_arguments(tool, text, request).missing

    steps = plan(tools, request, prefer=fillable)
    pending = [step for step in steps if step.tool.name not in called]
    if any(result.is_error for result in results):
        stopped = f" I stopped there and did not call {pending[0].tool.name}." if pending else ""
        return Reply(text=summary + stopped)
    if pending:
        step = pending[0]
        filled = fill_arguments(step.tool, step.text, request)
        if not filled.missing:
            return _call(step.tool, filled.arguments)
        ask = f"To call {step.tool.name} I need: {', '.join(filled.missing)}. {ASK_SUFFIX}"
        return Reply(text=f"{summary} {ask}" if summary else ask)
    if summary:
        return Reply(text=summary)
    if tool_choice == "required":
        best = rank(tools, request)[0].tool
        return _call(best, fill_arguments(best, request).arguments)
    return Reply(text=NO_TOOL_MATCHES)


def _request_text(messages: list[dict[str, Any]], user_index: int) -> str:
    """The user message at `user_index`; when it answers the model's question for missing arguments, the request
    that question was about comes first, so "origin: London; date: 2026-12-18" completes "Book me a flight"."""
    if user_index < 0:
        return ""
    text = content_text(messages[user_index].get("content"))
    before = messages[user_index - 1] if user_index > 0 else {}
    asked = before.get("role") == "assistant" and content_text(before.get("content")).rstrip().endswith(ASK_SUFFIX)
    earlier = max((i for i in range(user_index - 1) if messages[i].get("role") == "user"), default=-1)
    return f"{_request_text(messages, earlier)}\n{text}" if asked and earlier >= 0 else text


def _call(tool: Tool, arguments: dict[str, Any]) -> Reply:
    return Reply(tool_name=tool.name, arguments=arguments)


def _forced_tool(tool_choice: Any) -> str | None:
    if isinstance(tool_choice, dict):
        function = tool_choice.get("function")
        if isinstance(function, dict) and isinstance(function.get("name"), str):
            return str(function["name"])
    return None


def _turn_so_far(after_user: list[dict[str, Any]]) -> tuple[list[str], list[ToolResult]]:
    """The tools already called since the last user message, and their results."""
    names: dict[str, str] = {}
    called: list[str] = []
    results: list[ToolResult] = []
    for message in after_user:
        if message.get("role") == "assistant":
            for call in message.get("tool_calls") or []:
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(function, dict) and function.get("name"):
                    names[str(call.get("id"))] = str(function["name"])
                    called.append(str(function["name"]))
        elif message.get("role") == "tool":
            name = names.get(str(message.get("tool_call_id")), str(message.get("name") or "the tool"))
            results.append(read_result(name, message.get("content")))
    return called, results


def _formatted(text: str, response_format: Any) -> str:
    if not isinstance(response_format, dict):
        return text
    if response_format.get("type") == "json_schema":
        spec = response_format.get("json_schema")
        schema = spec.get("schema") if isinstance(spec, dict) else None
        return _json(example_for(schema if isinstance(schema, dict) else {"type": "object"}))
    if response_format.get("type") == "json_object":
        return _json({"answer": text})
    return text


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=False)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


def _digest(value: Any) -> str:
    return hashlib.sha256(_canonical(value).encode()).hexdigest()[:24]


def count_tokens(text: str) -> int:
    """The offline token rule: one token per started four characters."""
    return math.ceil(len(text) / 4)


def _response(request: dict[str, Any], messages: list[dict[str, Any]], reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    finish_reason = "stop"
    output_tokens = 0
    if reply.tool_name is not None:
        arguments = _json(reply.arguments or {})
        call = {
            "id": "call_" + _digest([messages, reply.tool_name, arguments]),
            "type": "function",
            "function": {"name": reply.tool_name, "arguments": arguments},
        }
        message = {"role": "assistant", "content": None, "tool_calls": [call]}
        finish_reason = "tool_calls"
        output_tokens = count_tokens(reply.tool_name + arguments)
    else:
        text = reply.text or ""
        limit = request.get("max_completion_tokens") or request.get("max_tokens")
        if isinstance(limit, int) and limit > 0 and count_tokens(text) > limit:
            text, finish_reason = text[: limit * 4], "length"
        message["content"] = text
        output_tokens = count_tokens(text)
    input_tokens = sum(
        count_tokens(content_text(m.get("content")))
        + (count_tokens(_canonical(m["tool_calls"])) if m.get("tool_calls") else 0)
        for m in messages
    )
    if request.get("tools"):
        input_tokens += count_tokens(_canonical(request["tools"]))
    return {
        "id": "chatcmpl-offline-" + _digest(request),
        "object": "chat.completion",
        "created": 0,
        "model": OFFLINE_MODEL,
        "system_fingerprint": RULES_VERSION,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": {
            "prompt_tokens": input_tokens,
            "completion_tokens": output_tokens,
            "total_tokens": input_tokens + output_tokens,
            "prompt_tokens_details": {"cached_tokens": 0},
        },
    }
