"""Chat with any OpenAI-compatible provider through the official openai SDK.

One code path for OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio, LiteLLM, OpenRouter, the OpenAI-compatible
endpoints of Anthropic and Google, and the built-in offline model (which answers through an in-process
transport). The SDK's own retries are off: `retry.call_with_retries` bounds them. Every failure is a
ProviderError.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Mapping, Sequence
from typing import Any, cast
from urllib.parse import urlsplit

import httpx
import httpx2
import openai
from openai.types.chat import ChatCompletion

from evalhub.egress import EgressRefused
from evalhub.egress.transport import GuardedBackend
from evalhub.model_client.config import ProviderConfig, RetryPolicy
from evalhub.model_client.deadline import DeadlineTransport, exchange_deadline
from evalhub.model_client.errors import (
    ErrorKind,
    ProviderError,
    asks_for_max_completion_tokens,
    from_status_error,
    from_transport_error,
    not_openai_compatible,
)
from evalhub.model_client.offline.transport import OfflineTransport, is_offline_url
from evalhub.model_client.pricing import price_call
from evalhub.model_client.results import ChatResult, TokenUsage, ToolCall
from evalhub.model_client.retry import Attempts, GaveUp, call_with_retries

Message = Mapping[str, Any]

# OpenAI's own API wants max_completion_tokens (its reasoning models refuse max_tokens); most other
# OpenAI-compatible servers only know max_tokens. A server that names max_completion_tokens in a 400 gets
# the request again with it.
_MAX_COMPLETION_TOKENS_HOSTS = re.compile(r"(^|\.)(api\.openai\.com|openai\.azure\.com)$")
_TOKEN_LIMIT_HIT = re.compile(r"max_tokens|max_completion_tokens|output limit|too small", re.IGNORECASE)


class ProviderClient:
    """A reusable connection to one provider; use it for all the turns of a run, then close it."""

    def __init__(self, config: ProviderConfig) -> None:
        self.config = config
        url = urlsplit(config.base_url)
        if url.scheme not in {"http", "https"} or not url.hostname:
            raise ProviderError(
                ErrorKind.BAD_URL,
                f"the base URL {config.base_url!r} must start with http:// or https:// "
                "(e.g. http://localhost:11434/v1)",
            )
        transport = config.transport or (OfflineTransport() if is_offline_url(config.base_url) else None)
        # The offline model is deterministic: what failed once fails again, so it gets one attempt.
        self._retry = RetryPolicy(max_attempts=1) if is_offline_url(config.base_url) else config.retry
        # The SDK takes a client of either httpx; the offline model's in-process transport is a plain httpx one.
        # Network calls get a total deadline per exchange (DeadlineTransport) and connect only to addresses the
        # provider's egress policy allows (GuardedBackend, checked after DNS resolution, redirects included).
        http_client: Any = (
            httpx.Client(transport=transport, follow_redirects=True)
            if transport
            else httpx2.Client(transport=DeadlineTransport(GuardedBackend(config.egress)), follow_redirects=True)
        )
        # OpenAI-Organization/-Project would otherwise come from the worker's environment and go to any host.
        default_headers = {"OpenAI-Organization": openai.omit, "OpenAI-Project": openai.omit, **config.extra_headers}
        self._sdk = openai.OpenAI(
            # Always explicit: with None the SDK would read OPENAI_API_KEY and send it to this base URL.
            api_key=config.api_key or "unused",
            base_url=config.base_url,
            timeout=config.timeout,
            max_retries=0,
            default_headers=cast(Mapping[str, str], default_headers),
            http_client=http_client,
        )
        has_own_auth = any(name.lower() == "authorization" for name in config.extra_headers)
        # A local server without a key gets no Authorization header at all.
        self._request_headers: dict[str, Any] = {} if config.api_key or has_own_auth else {"Authorization": openai.omit}
        host = (url.hostname or "").lower()
        self._max_tokens_param = "max_completion_tokens" if _MAX_COMPLETION_TOKENS_HOSTS.search(host) else "max_tokens"

    def close(self) -> None:
        self._sdk.close()

    def __enter__(self) -> ProviderClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def chat(
        self,
        *,
        messages: Sequence[Message],
        model: str,
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | Mapping[str, Any] | None = None,
        response_format: Mapping[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        deadline: float | None = None,
    ) -> ChatResult:
        """One assistant turn. `tools` are OpenAI function tools (`{"type": "function", "function": {...}}`).

        The call, retries and waits included, ends within the retry policy's `max_total_seconds`, and by
        `deadline` (a `time.monotonic()` instant) when one is given: a caller making several calls (a judge, the
        scorer generator) bounds them all together that way."""
        params: dict[str, Any] = {"model": model, "messages": list(messages)}
        if tools:
            params["tools"] = list(tools)
        if tool_choice is not None:
            params["tool_choice"] = tool_choice
        if response_format is not None:
            params["response_format"] = response_format
        if temperature is not None:
            params["temperature"] = temperature
        try:
            completion, attempts = self._create(params, max_tokens, deadline)
        except GaveUp as gave_up:
            raise self._error(gave_up, model) from None
        return self._result(completion, attempts, model)

    def _create(self, params: dict[str, Any], max_tokens: int | None, deadline: float | None) -> tuple[Any, Attempts]:
        attempts = Attempts()

        def send(timeout: float) -> Any:
            body = {**params, self._max_tokens_param: max_tokens} if max_tokens is not None else params
            with exchange_deadline(timeout) as progress:
                try:
                    # What chat.completions.create sends, less its walk of the body against the SDK's typed
                    # parameters: that walk (openai._utils._transform) changes nothing in a chat request (no
                    # aliased or formatted field) yet took 8 % of the worker's CPU under the bench (issue 30).
                    return self._sdk.post(
                        "/chat/completions",
                        body=body,
                        cast_to=ChatCompletion,
                        options={"headers": self._request_headers, "timeout": timeout},
                    )
                finally:
                    attempts.last_received = progress.received

        try:
            result = call_with_retries(
                send, policy=self._retry, timeout=self.config.timeout, attempts=attempts, until=deadline
            )
            return result, attempts
        except GaveUp as gave_up:
            error = gave_up.error
            if (
                max_tokens is not None
                and self._max_tokens_param == "max_tokens"
                and isinstance(error, openai.APIStatusError)
                and asks_for_max_completion_tokens(error)
            ):
                self._max_tokens_param = "max_completion_tokens"
                return self._create(params, max_tokens, deadline)
            raise

    def _error(self, gave_up: GaveUp, model: str) -> Exception:
        error, attempts = gave_up.error, gave_up.attempts
        elapsed = time.monotonic() - attempts.started
        if isinstance(error, openai.APIStatusError):
            return from_status_error(error, config=self.config, model=model, attempts=attempts, elapsed=elapsed)
        if isinstance(error, openai.APIError | ValueError | EgressRefused):
            # ValueError: a body that is not JSON, or JSON the SDK cannot read as a completion. EgressRefused: the
            # transport would not connect to the address (the SDK lets it through unwrapped; it is never retried).
            return from_transport_error(error, config=self.config, attempts=attempts)
        return error  # not a provider failure but a bug: raised as it is, with its own traceback

    def _result(self, completion: Any, attempts: Attempts, model: str) -> ChatResult:
        now = time.monotonic()
        choice = completion.choices[0] if isinstance(completion, ChatCompletion) and completion.choices else None
        message = getattr(choice, "message", None)
        if choice is None or message is None:
            # An HTML page or foreign JSON: the SDK hands back a str or a ChatCompletion with no choices.
            raise not_openai_compatible(self.config, self.config.redact(repr(completion))[:200])
        tool_calls = [_tool_call(call, index) for index, call in enumerate(message.tool_calls or [])]
        usage = _usage(completion)
        return ChatResult(
            text=message.content or message.refusal or "",
            tool_calls=tool_calls,
            finish_reason=choice.finish_reason or "",
            usage=usage,
            cost=price_call(
                model=model,
                usage=usage,
                base_url=self.config.base_url,
                overrides=self.config.price_overrides,
                response_model=completion.model,
            ),
            latency_ms=(now - attempts.last_started) * 1000,
            total_ms=(now - attempts.started) * 1000,
            attempts=attempts.count,
            model=completion.model or model,
            message=_assistant_message(message.content, tool_calls),
            raw_response=completion.model_dump(mode="json", exclude_unset=True),
        )


def chat(
    config: ProviderConfig,
    *,
    messages: Sequence[Message],
    model: str,
    tools: Sequence[Mapping[str, Any]] | None = None,
    tool_choice: str | Mapping[str, Any] | None = None,
    response_format: Mapping[str, Any] | None = None,
    max_tokens: int | None = None,
    temperature: float | None = None,
) -> ChatResult:
    """One call with a fresh client. An agent loop of several turns should keep one ProviderClient instead."""
    with ProviderClient(config) as client:
        return client.chat(
            messages=messages,
            model=model,
            tools=tools,
            tool_choice=tool_choice,
            response_format=response_format,
            max_tokens=max_tokens,
            temperature=temperature,
        )


def test_provider(config: ProviderConfig, model: str) -> float:
    """The Settings page's "Test" button: a one-token request. Returns the latency in ms or raises
    ProviderError with a message for the user."""
    started = time.monotonic()
    try:
        result = chat(config, messages=[{"role": "user", "content": "Reply with OK."}], model=model, max_tokens=1)
    except ProviderError as error:
        # Reasoning models may refuse a one-token budget: the key, URL and model were all accepted then.
        if error.kind == ErrorKind.BAD_REQUEST and _TOKEN_LIMIT_HIT.search(error.detail):
            return (time.monotonic() - started) * 1000
        raise
    return result.latency_ms


# Keep pytest from collecting test_provider as a test when a test module imports it.
test_provider.__test__ = False  # type: ignore[attr-defined]


def _tool_call(call: Any, index: int) -> ToolCall:
    function = getattr(call, "function", None)
    name = getattr(function, "name", "") or ""
    raw = getattr(function, "arguments", "") or ""
    # Some servers omit tool-call ids; the next turn's tool message must quote one, so derive it.
    call_id = call.id or "call_" + hashlib.sha256(f"{index}:{name}:{raw}".encode()).hexdigest()[:24]
    arguments, problem = parse_arguments(raw)
    return ToolCall(id=call_id, name=name, arguments=arguments, raw_arguments=raw, arguments_error=problem)


def parse_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """A tool call's arguments as a dict, or None and the reason. Empty text means no arguments."""
    if not raw.strip():
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return None, f"invalid JSON ({exc.msg} at character {exc.pos})"
    if not isinstance(value, dict):
        return None, f"expected a JSON object, got {type(value).__name__}"
    return value, None


def _usage(completion: ChatCompletion) -> TokenUsage | None:
    usage = completion.usage
    if usage is None:
        return None
    details = usage.prompt_tokens_details
    return TokenUsage(
        input_tokens=usage.prompt_tokens or 0,
        output_tokens=usage.completion_tokens or 0,
        cached_tokens=(details.cached_tokens or 0) if details else 0,
    )


def _assistant_message(content: str | None, tool_calls: list[ToolCall]) -> dict[str, Any]:
    # Only the fields every server accepts back: echoing refusal/annotations/reasoning fields breaks some.
    message: dict[str, Any] = {"role": "assistant", "content": content or (None if tool_calls else "")}
    if tool_calls:
        message["tool_calls"] = [
            {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.raw_arguments}}
            for call in tool_calls
        ]
    return message
