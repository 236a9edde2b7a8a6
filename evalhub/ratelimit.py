"""Rate limiting of the API per API key and per logged-in user, on Django's cache (see CACHES in settings).

A fixed one-minute window per caller: simple, the same in every web process (the cache is shared: Redis or a
database table), and enough to stop a runaway script. Every answer carries X-RateLimit-Limit/-Remaining/-Reset.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.utils.cache import patch_vary_headers
from ninja.throttling import BaseThrottle

logger = logging.getLogger(__name__)
WINDOW_SECONDS = 60


@dataclass(frozen=True)
class RateLimitState:
    limit: int
    remaining: int
    reset: int  # Unix time when the window ends
    exceeded: bool

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset),
        }


def rate_limit_hit(ident: str, *, limit: int, now: float | None = None) -> RateLimitState | None:
    """Count one request of `ident` in the current window; None when the cache cannot be reached."""
    now = time.time() if now is None else now
    window = int(now // WINDOW_SECONDS)
    key = f"evalhub:ratelimit:{ident}:{window}"
    try:
        cache.add(key, 0, timeout=WINDOW_SECONDS * 2)
        count = cache.incr(key)
    except ValueError:
        # The entry expired between add and incr (a window boundary): this is the first request of the new one.
        cache.set(key, 1, timeout=WINDOW_SECONDS * 2)
        count = 1
    except Exception:
        # A broken cache must not take the API down with it; the limit is a safeguard, not a guarantee.
        logger.exception("Rate limiting skipped: the cache is not available.")
        return None
    return RateLimitState(
        limit=limit, remaining=max(limit - count, 0), reset=(window + 1) * WINDOW_SECONDS, exceeded=count > limit
    )


class CallerRateThrottle(BaseThrottle):
    """ninja's throttle hook: runs after authentication, so the caller (key or user) is known."""

    def allow_request(self, request: HttpRequest) -> bool:
        caller = getattr(request, "auth", None)
        ident = getattr(caller, "rate_limit_ident", None)
        if ident is None:
            return True  # Only public operations (health) get here, and they are cheap.
        state = rate_limit_hit(ident, limit=settings.EVALHUB_API_RATE_LIMIT)
        if state is None:
            return True
        request.evalhub_rate_limit = state  # type: ignore[attr-defined]
        return not state.exceeded

    def wait(self) -> float | None:
        return float(WINDOW_SECONDS - math.floor(time.time()) % WINDOW_SECONDS)


def with_rate_limit_headers(run: Callable[..., HttpResponseBase]) -> Callable[..., HttpResponseBase]:
    """Wraps each operation's `run`, so every answer (data, file or error) gets the caller's X-RateLimit-* headers."""

    @functools.wraps(run)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        response = run(request, *args, **kwargs)
        # Answers differ by caller: caches between the client and us must not share them.
        patch_vary_headers(response, ["Authorization"])
        state: RateLimitState | None = getattr(request, "evalhub_rate_limit", None)
        if state is not None:
            for name, value in state.headers().items():
                response[name] = value
        return response

    return wrapper
