"""The resource and prompt levels: no model; EvalHub reads one resource or gets one prompt on the run's connection.

The answer is recorded as one direct step, like an execution-level tool call (runs/levels.py), under the names
`resources/read` and `prompts/get` with the request as its arguments: the transcript, the run page, the API and the
expectations engine (`tool_result` with JSON paths into `structuredContent`) read it as they read a tool call.
`structuredContent` is the server's answer with a `size` added to each resource content (bytes of its text, or
of its decoded blob), so expectations can bound it.

Verdict: a read or get the server answers with an error raises McpConnectionError; the pipeline records it as the
run's error and runs/verdict gives it to the server (cause "server"). A successful one passes the default scorer
("read/get succeeded") unless the scenario's expectations say more.
"""

from __future__ import annotations

import base64
import binascii
import time
from typing import Any

from evalhub.mcp_client.connection import Connection
from runs.models import Run
from runs.primitive_request import resource_uri
from runs.recorder import Recorder

READ_RESOURCE = "resources/read"
GET_PROMPT = "prompts/get"


def _sized(content: dict[str, Any]) -> dict[str, Any]:
    if "text" in content:
        return {**content, "size": len(str(content["text"]).encode())}
    try:
        size = len(base64.b64decode(str(content.get("blob", "")), validate=True))
    except (binascii.Error, ValueError):
        size = len(str(content.get("blob", "")))  # Not base64 after all: its length as sent.
    return {**content, "size": size}


def resource_result(answer: dict[str, Any]) -> dict[str, Any]:
    """A read as a tool result: text blocks for readers (and judges), the answer, sized, as structuredContent."""
    contents = [_sized(item) for item in answer.get("contents", [])]
    blocks = [
        {"type": "text", "text": item["text"]}
        if "text" in item
        else {"type": "text", "text": f"(blob {item.get('mimeType', '')}, {item['size']} bytes)"}
        for item in contents
    ]
    return {"content": blocks, "structuredContent": {**answer, "contents": contents}, "isError": False}


def prompt_result(answer: dict[str, Any]) -> dict[str, Any]:
    """A get as a tool result: each message's text, and the answer as structuredContent."""
    blocks = []
    for message in answer.get("messages", []):
        content = message.get("content") or {}
        text = content.get("text") if content.get("type") == "text" else f"({content.get('type', 'content')})"
        blocks.append({"type": "text", "text": f"{message.get('role', '')}: {text}"})
    return {"content": blocks, "structuredContent": answer, "isError": False}


async def read_resource(*, request: dict[str, Any], conn: Connection, recorder: Recorder) -> str:
    uri = resource_uri(request)
    arguments = {"uri": uri, **({"template": request["template"]} if request.get("template") else {})}
    started = time.perf_counter()
    await recorder.direct_call(READ_RESOURCE, arguments)
    await recorder.entering(f"read {uri}")
    answer = await conn.read_resource(uri)
    await recorder.tool_called(_call(READ_RESOURCE, arguments, resource_result(answer), started))
    return Run.StopReason.COMPLETED


async def get_prompt(*, request: dict[str, Any], conn: Connection, recorder: Recorder) -> str:
    name = str(request["name"])
    arguments = {str(key): str(value) for key, value in (request.get("arguments") or {}).items()}
    started = time.perf_counter()
    await recorder.direct_call(GET_PROMPT, {"name": name, "arguments": arguments})
    await recorder.entering(f"get prompt {name}")
    answer = await conn.get_prompt(name, arguments)
    await recorder.tool_called(
        _call(GET_PROMPT, {"name": name, "arguments": arguments}, prompt_result(answer), started)
    )
    return Run.StopReason.COMPLETED


def _call(name: str, args: dict[str, Any], result: dict[str, Any], started: float) -> dict[str, Any]:
    return {
        "toolName": name,
        "args": args,
        "result": result,
        "timestamp": int(time.time() * 1000),
        "durationMs": round((time.perf_counter() - started) * 1000),
        "isError": False,
        "nestedCalls": [],
    }
