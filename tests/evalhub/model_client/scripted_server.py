"""A real OpenAI-compatible HTTP endpoint on 127.0.0.1 that answers from a script.

Each request takes the next scripted answer (status, JSON or text body, headers, optional delay) and is
recorded with its arrival time, so tests can count attempts and measure the waits between them. An answer
may also be held until the test releases it: a call in progress for exactly as long as a test needs.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

API_KEY = "sk-test-SECRET-0123456789abcdef"


@dataclass
class Answer:
    status: int = 200
    body: Any = None  # a dict or list is sent as JSON, a str as text/html
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    # Overrides the Content-Type the body's type implies: broken JSON sent as application/json, for example.
    content_type: str | None = None
    # Parks the request until the test sets it (or the server closes): a call that is "in progress" for as long
    # as a test needs, with no sleep.
    hold: threading.Event | None = None
    # Seconds between bytes: the whole response, status line first, goes out one byte at a time (a provider that
    # keeps every read alive while never finishing in time).
    drip: float = 0.0


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    json: Any
    at: float


class ScriptedServer:
    def __init__(self) -> None:
        self.answers: deque[Answer] = deque()
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._holds: list[threading.Event] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                server._answer(self)

            def do_GET(self) -> None:
                server._answer(self)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}/v1"

    def script(self, *answers: Answer) -> None:
        self.answers.extend(answers)
        self._holds.extend(answer.hold for answer in answers if answer.hold is not None)

    def close(self) -> None:
        for hold in self._holds:
            hold.set()
        self._http.shutdown()
        self._http.server_close()

    def _answer(self, handler: BaseHTTPRequestHandler) -> None:
        at = time.monotonic()
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        with self._lock:
            self.received.append(
                Received(
                    handler.command,
                    handler.path,
                    {k.lower(): v for k, v in handler.headers.items()},
                    json.loads(raw) if raw else None,
                    at,
                )
            )
            answer = self.answers.popleft() if self.answers else Answer(500, {"error": {"message": "unscripted"}})
        if answer.hold is not None:
            answer.hold.wait()
        if answer.delay:
            time.sleep(answer.delay)
        if isinstance(answer.body, dict | list):
            payload, content_type = json.dumps(answer.body).encode(), "application/json"
        else:
            payload, content_type = str(answer.body or "").encode(), "text/html"
        content_type = answer.content_type or content_type
        try:
            if answer.drip:
                handler.wfile = _Drip(handler.wfile, answer.drip)  # type: ignore[assignment]
            handler.send_response(answer.status)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Content-Length", str(len(payload)))
            for name, value in answer.headers.items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up first (a timeout test)


class _Drip:
    """A response writer that sends one byte, waits, sends the next."""

    def __init__(self, inner: Any, interval: float) -> None:
        self._inner = inner
        self._interval = interval

    def write(self, data: bytes) -> int:
        for index in range(len(data)):
            self._inner.write(data[index : index + 1])
            self._inner.flush()
            time.sleep(self._interval)
        return len(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)  # flush, close, closed: the handler's own writer does those


def completion(
    *,
    content: str | None = "Hello!",
    tool_calls: list[dict[str, Any]] | None = None,
    model: str = "gpt-4o-2024-08-06",
    prompt_tokens: int = 1200,
    completion_tokens: int = 30,
    cached_tokens: int = 1024,
    finish_reason: str | None = None,
) -> dict[str, Any]:
    """A chat.completion body as OpenAI records it."""
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None, "annotations": []}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-Bx1",
        "object": "chat.completion",
        "created": 1754000000,
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": finish_reason or ("tool_calls" if tool_calls else "stop"),
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached_tokens, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
        },
        "service_tier": "default",
        "system_fingerprint": "fp_07871e2ad8",
    }


def tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def openai_error(
    status: int,
    message: str,
    *,
    code: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
) -> Answer:
    kind = {401: "invalid_request_error", 429: "requests", 500: "server_error"}.get(status, "invalid_request_error")
    return Answer(status, {"error": {"message": message, "type": kind, "param": param, "code": code}}, headers or {})
