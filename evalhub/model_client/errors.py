"""The one error the provider layer raises, with a message a user can act on.

Callers branch on `kind`; `message` is written for the Settings page and the run transcript. Neither ever
contains the API key: messages quoted from the provider are redacted before they are kept.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import TYPE_CHECKING, Any

import openai

from evalhub.egress import EgressRefused
from evalhub.model_client.config import ProviderConfig

if TYPE_CHECKING:
    from evalhub.model_client.retry import Attempts


class ErrorKind(StrEnum):
    AUTH = "auth"  # 401
    PERMISSION = "permission"  # 403
    RATE_LIMITED = "rate_limited"  # 429 after every retry, or a quota that retrying cannot fix
    TIMEOUT = "timeout"  # no answer within the per-call timeout
    MODEL_NOT_FOUND = "model_not_found"
    CONTEXT_TOO_LONG = "context_too_long"
    BAD_URL = "bad_url"  # 404 on the endpoint, not an OpenAI-compatible answer, or refused by the egress policy
    # Connection refused, DNS, network: the URL may be right and the server down, so not called bad_url.
    UNREACHABLE = "unreachable"
    SERVER_ERROR = "server_error"  # 5xx after every retry
    BAD_REQUEST = "bad_request"  # any other refusal; the provider's own words are quoted
    MALFORMED_TOOL_ARGUMENTS = "malformed_tool_arguments"  # see ToolCall.require_arguments


class ProviderError(Exception):
    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        status_code: int | None = None,
        detail: str = "",
        attempts: int = 1,
        raw_arguments: str | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status_code = status_code
        # The provider's own (redacted) words, for the transcript and for debugging.
        self.detail = detail
        self.attempts = attempts
        self.raw_arguments = raw_arguments

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> tuple[Any, ...]:
        # Celery pickles exceptions across processes; the keyword-only fields must survive.
        return (_rebuild, (self.kind, self.message, self.__dict__))

    def __repr__(self) -> str:
        return f"ProviderError(kind={self.kind.value!r}, message={self.message!r}, status_code={self.status_code!r})"


def _rebuild(kind: ErrorKind, message: str, state: dict[str, Any]) -> ProviderError:
    error = ProviderError(kind, message)
    error.__dict__.update(state)
    return error


_MODEL_MISSING = re.compile(
    r"model.*(not found|does not exist|not exist|unknown|invalid|no such|not available|try pulling)"
    r"|(unknown|invalid|no such) model",
    re.IGNORECASE | re.DOTALL,
)
_CONTEXT_TOO_LONG = re.compile(
    r"context.length|context.window|maximum context|prompt is too long|too many (input )?tokens|input is too long"
    r"|reduce the length",
    re.IGNORECASE,
)
_MAX_TOKENS_UNSUPPORTED = re.compile(r"max_completion_tokens", re.IGNORECASE)


def provider_detail(exc: openai.APIStatusError, config: ProviderConfig) -> str:
    """The provider's own error message, redacted and cut short."""
    body: Any = exc.body
    if isinstance(body, dict):
        text = body.get("message") or body.get("error") or body.get("detail") or json.dumps(body)
    elif body is None:
        text = ""
    else:
        text = str(body)
    if not isinstance(text, str):
        text = json.dumps(text)
    text = re.sub(r"\s+", " ", text).strip()
    return config.redact(text)[:300]


def error_code(exc: openai.APIStatusError) -> str:
    return (exc.code or "").lower()


def asks_for_max_completion_tokens(exc: openai.APIStatusError) -> bool:
    """Newer OpenAI models refuse `max_tokens` and name the parameter they want instead."""
    return exc.status_code == 400 and bool(_MAX_TOKENS_UNSUPPORTED.search(str(exc.body) + exc.message))


def is_quota_exhausted(exc: openai.APIStatusError) -> bool:
    return exc.status_code == 429 and error_code(exc) == "insufficient_quota"


def from_status_error(
    exc: openai.APIStatusError, *, config: ProviderConfig, model: str, attempts: Attempts, elapsed: float
) -> ProviderError:
    """Turn an HTTP error from the provider into a ProviderError with a human message."""
    status = exc.status_code
    detail = provider_detail(exc, config)
    code = error_code(exc)
    base = config.base_url.rstrip("/")
    count = attempts.count
    tries = f"gave up after {count} attempt{'s' if count != 1 else ''} in {elapsed:.1f} s"
    if attempts.refused_wait is not None:
        left = max(attempts.budget - elapsed, 0.0)
        budget = "overall time budget" if attempts.caller_budget else f"{attempts.budget:g} s retry budget"
        tries += (
            f": it asked to wait {_duration(attempts.refused_wait)} before trying again (Retry-After), longer than "
            f"the {left:.1f} s left of the {budget}"
        )

    def error(kind: ErrorKind, message: str) -> ProviderError:
        return ProviderError(kind, message, status_code=status, detail=detail, attempts=count)

    if status == 401:
        hint = " — this provider needs an API key" if not config.api_key else ""
        return error(ErrorKind.AUTH, f"the provider rejected the API key (401){hint}")
    if status == 403:
        return error(ErrorKind.PERMISSION, f"the provider refused access to model {model!r} (403): {detail}")
    if status == 429:
        if is_quota_exhausted(exc):
            return error(ErrorKind.RATE_LIMITED, "the provider says the account is out of quota (429) — check billing")
        return error(ErrorKind.RATE_LIMITED, f"the provider kept rate-limiting the requests (429) — {tries}")
    if status >= 500:
        return error(ErrorKind.SERVER_ERROR, f"the provider had a server error (HTTP {status}) — {tries}")
    if code in {"model_not_found", "model_not_available"} or (status in {400, 404} and _MODEL_MISSING.search(detail)):
        return error(ErrorKind.MODEL_NOT_FOUND, f"model {model!r} not found at {base} — check the model name")
    if code == "context_length_exceeded" or (status in {400, 413} and _CONTEXT_TOO_LONG.search(detail)):
        return error(ErrorKind.CONTEXT_TOO_LONG, f"the conversation is too long for model {model!r}: {detail}")
    if status in {404, 405}:
        return error(
            ErrorKind.BAD_URL,
            f"{base}/chat/completions answered {status} — check the base URL, it usually ends in /v1",
        )
    return error(ErrorKind.BAD_REQUEST, f"the provider rejected the request ({status}): {detail}")


def from_transport_error(exc: Exception, *, config: ProviderConfig, attempts: Attempts) -> ProviderError:
    """Timeouts, refused connections (by the server, or by EvalHub's egress policy) and answers that are not
    OpenAI-compatible JSON."""
    base = config.base_url.rstrip("/")
    if isinstance(exc, openai.APITimeoutError):
        timeout = attempts.last_timeout
        if timeout < config.timeout:
            # The caller's deadline spans several calls (a judging, a generation): only it knows its total.
            budget = "overall time budget" if attempts.caller_budget else f"{attempts.budget:g} s retry budget"
            limit = f"{timeout:.1f} s (what was left of the {budget})"
        else:
            limit = f"{timeout:g} s (the per-call timeout)"
        if attempts.last_received:
            # A provider that answers a little at a time: the deadline covers the whole answer, not each read.
            message = (
                f"{base} started answering but had not finished within {limit} "
                f"({attempts.last_received} bytes received)"
            )
        else:
            message = f"no answer from {base} within {limit}"
        return ProviderError(ErrorKind.TIMEOUT, message, attempts=attempts.count)
    if isinstance(exc, EgressRefused):
        return ProviderError(ErrorKind.BAD_URL, f"refused to connect to {base}: {exc}", attempts=attempts.count)
    if isinstance(exc, openai.APIConnectionError):
        reason = config.redact(_root_cause(exc))
        return ProviderError(
            ErrorKind.UNREACHABLE,
            f"could not connect to {base} ({reason}) — check the base URL and that the server is running",
            detail=reason,
            attempts=attempts.count,
        )
    return not_openai_compatible(config, f"{type(exc).__name__}: {config.redact(str(exc))[:200]}")


def _duration(seconds: float) -> str:
    """'12 s', or '3600 s (about 60 min)' when minutes say it better."""
    text = f"{seconds:.0f} s"
    return text if seconds < 120 else f"{text} (about {round(seconds / 60)} min)"


def not_openai_compatible(config: ProviderConfig, detail: str) -> ProviderError:
    base = config.base_url.rstrip("/")
    return ProviderError(
        ErrorKind.BAD_URL,
        f"{base} did not answer like an OpenAI-compatible API — check the base URL, it usually ends in /v1",
        detail=detail,
    )


def _root_cause(exc: BaseException) -> str:
    # The SDK says only "Connection error."; the httpx cause says "connection refused" or "name not known".
    cause: BaseException = exc
    while cause.__cause__ is not None:
        cause = cause.__cause__
    text = str(cause) or type(cause).__name__
    if re.search(r"refused|errno 111", text, re.IGNORECASE):
        return "connection refused"
    if re.search(r"name or service not known|nodename|getaddrinfo|name resolution", text, re.IGNORECASE):
        return "host name not found"
    return text[:120]
