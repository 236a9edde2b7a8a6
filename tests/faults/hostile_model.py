"""Hostile OpenAI-compatible endpoint modes for the fault corpus, as scripts for the scripted endpoint.

The endpoint is tests/evalhub/model_client/scripted_server.py (a real HTTP server the real openai SDK talks
to); a mode is the list of answers it gives, request after request, to an agent whose MCP server offers the
tool `act` (tests/faults/hostile_server.py). `script(scripted, mode)` loads one.
"""

from __future__ import annotations

from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, openai_error, tool_call

# Longer than the provider timeout the corpus gives the `hang` case (1 s), short enough not to hold the
# endpoint's thread for long after the client gave up.
HANG_SECONDS = 3.0
RETRY_AFTER_SECONDS = 1
# Provider.to_config() uses the default RetryPolicy: 4 attempts.
ATTEMPTS = 4

CALL_ACT = Answer(body=completion(tool_calls=[tool_call("call_1", "act", "{}")]))
DONE = Answer(body=completion(content="Done."))
CONTEXT_TOO_LONG = (
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. "
    "Please reduce the length of the messages."
)

MODES: dict[str, list[Answer]] = {
    "rate-limited-then-ok": [
        openai_error(429, "Rate limit reached for gpt-4o.", headers={"Retry-After": str(RETRY_AFTER_SECONDS)}),
        CALL_ACT,
        DONE,
    ],
    "server-errors": [openai_error(500, "The server had an error while processing your request.")] * ATTEMPTS,
    "hang": [Answer(body=CALL_ACT.body, delay=HANG_SECONDS)],
    "malformed-json": [Answer(body='{"id": "chatcmpl-1", "choices": [{"message": ', content_type="application/json")],
    "html-page": [Answer(body="<html><body><h1>Welcome to nginx!</h1></body></html>")],
    "unknown-tool": [Answer(body=completion(tool_calls=[tool_call("call_1", "delete_everything", "{}")])), DONE],
    "non-json-arguments": [Answer(body=completion(tool_calls=[tool_call("call_1", "act", "{'force': True")])), DONE],
    "context-too-long": [
        CALL_ACT,
        openai_error(400, CONTEXT_TOO_LONG, code="context_length_exceeded", param="messages"),
    ],
    "fails-on-second-call": [
        CALL_ACT,
        openai_error(401, "Incorrect API key provided: sk-test***. The key was revoked.", code="invalid_api_key"),
    ],
    "healthy": [CALL_ACT, DONE],
}


def script(scripted: ScriptedServer, mode: str) -> None:
    scripted.script(*MODES[mode])
