"""Hostile OpenAI-compatible endpoint modes for the fault corpus, as scripts for the scripted endpoint.

The endpoint is tests/evalhub/model_client/scripted_server.py (a real HTTP server the real openai SDK talks
to); a mode is the list of answers it gives, request after request, to an agent whose MCP server offers the
tool `act` (tests/faults/hostile_server.py). `script(scripted, mode)` loads one.
"""

from __future__ import annotations

import json

from tests.evalhub.model_client.scripted_server import (
    API_KEY,
    Answer,
    ScriptedServer,
    completion,
    openai_error,
    tool_call,
)

# Longer than the provider timeout the corpus gives the `hang` case (1 s), short enough not to hold the
# endpoint's thread for long after the client gave up.
HANG_SECONDS = 3.0
RETRY_AFTER_SECONDS = 1
# An hour: far beyond the 180 s a run's model call may take, waits included (the default RetryPolicy).
LONG_RETRY_AFTER_SECONDS = 3600
# Seconds between bytes of a dripping answer: every read is quick, the whole answer would take half a minute.
DRIP_SECONDS = 0.05
# The bearer token of the agent's MCP server in the `echo-secrets` mode (the provider's key is API_KEY).
SERVER_TOKEN = "srv-SECRET-token-4242"
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
    "rate-limited-long-wait": [
        openai_error(429, "Rate limit reached for gpt-4o.", headers={"Retry-After": str(LONG_RETRY_AFTER_SECONDS)})
    ],
    "drip": [Answer(body=CALL_ACT.body, drip=DRIP_SECONDS)],
    # Python's json.dumps writes NaN and Infinity; so do models that learnt JSON from it.
    "nan-arguments": [
        Answer(body=completion(tool_calls=[tool_call("call_1", "act", '{"threshold": NaN, "limits": [1, Infinity]}')])),
        DONE,
    ],
    "echo-secrets": [
        Answer(
            body=completion(
                content=f"Echoing {SERVER_TOKEN}.",
                tool_calls=[tool_call("call_1", "act", json.dumps({"text": f"key {API_KEY} token {SERVER_TOKEN}"}))],
            )
        ),
        Answer(body=completion(content=f"Your key is {API_KEY} and the token is {SERVER_TOKEN}.")),
    ],
    "healthy": [CALL_ACT, DONE],
}


def script(scripted: ScriptedServer, mode: str) -> None:
    scripted.script(*MODES[mode])
