"""Bounded retries with exponential backoff and full jitter, honouring Retry-After.

We retry ourselves (the SDK's own retries are off) so that the count and the total time are bounded by the
user's RetryPolicy and so that tests can see every attempt.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TypeVar

import openai

from evalhub.model_client.config import RetryPolicy
from evalhub.model_client.errors import is_quota_exhausted

log = logging.getLogger(__name__)

T = TypeVar("T")

# A retry that would have less than this left of the budget cannot get an answer; giving up reports the real
# error (a 502, say) instead of a timeout the budget itself caused.
SHORTEST_USEFUL_ATTEMPT_SECONDS = 0.2


def retry_after_seconds(headers: Mapping[str, str], *, now: datetime | None = None) -> float | None:
    """Seconds the server asked us to wait: `retry-after-ms` (OpenAI), else `Retry-After` in seconds or as
    an HTTP date. None when absent or unreadable."""
    lowered = {k.lower(): v for k, v in headers.items()}
    if (ms := lowered.get("retry-after-ms")) is not None:
        try:
            return max(float(ms) / 1000, 0.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - (now or datetime.now(UTC))).total_seconds(), 0.0)


def backoff_delay(retry: int, policy: RetryPolicy, uniform: Callable[[float, float], float]) -> float:
    """Full jitter: a uniform wait up to the exponential cap, so that many workers do not retry in step."""
    return uniform(0.0, min(policy.max_delay, policy.base_delay * 2**retry))


def is_retryable(exc: Exception) -> bool:
    """429, 5xx and connection failures may pass; a timeout is not retried because a model that used up the
    whole per-call timeout is likely to do it again, and retrying would multiply the user's wait."""
    if isinstance(exc, openai.APITimeoutError):
        return False
    if isinstance(exc, openai.APIConnectionError):
        return True
    if isinstance(exc, openai.APIStatusError):
        if is_quota_exhausted(exc):
            return False
        return exc.status_code == 429 or exc.status_code >= 500
    return False


@dataclass
class Attempts:
    """How the call went: filled in while retrying, read after success or failure."""

    count: int = 0
    started: float = 0.0
    last_started: float = 0.0
    last_timeout: float = 0.0
    # The whole call's budget in seconds: the policy's max_total_seconds, or less when the caller's deadline is nearer.
    budget: float = 0.0
    caller_budget: bool = False  # the budget is what was left of the caller's deadline, not the retry policy's
    # Bytes the provider sent during the last attempt: a timeout after some means it answered too slowly.
    last_received: int = 0
    # The wait the provider asked for (Retry-After) when it was longer than the time left, so no retry was made.
    refused_wait: float | None = None


class GaveUp(Exception):
    """The last error, re-raised by `call_with_retries` when no further attempt is allowed."""

    def __init__(self, error: Exception, attempts: Attempts) -> None:
        super().__init__(str(error))
        self.error = error
        self.attempts = attempts


def call_with_retries(
    send: Callable[[float], T],
    *,
    policy: RetryPolicy,
    timeout: float,
    attempts: Attempts,
    until: float | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    uniform: Callable[[float, float], float] = random.uniform,
) -> T:
    """Call `send(per_attempt_timeout)` until it succeeds, a non-retryable error, or the policy's bounds.

    Each attempt's timeout is the per-call timeout, shortened so that the attempt ends within the total
    budget: the policy's max_total_seconds, or `until` (a `clock()` instant) when that comes first. Failures are
    raised as GaveUp wrapping the SDK's exception.
    """
    attempts.started = clock()
    attempts.budget = policy.max_total_seconds
    if until is not None and until - attempts.started < attempts.budget:
        attempts.budget, attempts.caller_budget = max(until - attempts.started, 0.0), True
    deadline = attempts.started + attempts.budget
    while True:
        attempts.count += 1
        attempts.last_started = clock()
        attempts.last_timeout = max(min(timeout, deadline - attempts.last_started), 0.001)
        try:
            return send(attempts.last_timeout)
        except Exception as exc:
            if not is_retryable(exc) or attempts.count >= policy.max_attempts:
                raise GaveUp(exc, attempts) from exc
            delay = backoff_delay(attempts.count - 1, policy, uniform)
            asked = retry_after_seconds(exc.response.headers) if isinstance(exc, openai.APIStatusError) else None
            if asked is not None:
                delay = max(delay, asked)
            if clock() + delay + SHORTEST_USEFUL_ATTEMPT_SECONDS >= deadline:
                if asked is not None and asked == delay:
                    attempts.refused_wait = asked
                raise GaveUp(exc, attempts) from exc
            log.info(
                "provider call failed (%s); retry %d of %d in %.2f s",
                _describe(exc),
                attempts.count,
                policy.max_attempts - 1,
                delay,
            )
            sleep(delay)


def _describe(exc: Exception) -> str:
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}"
    return type(exc).__name__
