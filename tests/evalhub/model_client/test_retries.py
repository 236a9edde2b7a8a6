"""Retries: which failures, how many times, how long apart, and within what total time."""

from __future__ import annotations

import itertools
import re
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from evalhub.model_client import ErrorKind, ProviderConfig, ProviderError, RetryPolicy, chat
from evalhub.model_client.retry import backoff_delay, retry_after_seconds
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, openai_error

HELLO = [{"role": "user", "content": "Hi"}]


def rate_limited(retry_after: str | None = None) -> Answer:
    answer = openai_error(429, "Rate limit reached for gpt-4o on requests per min (RPM).", code="rate_limit_exceeded")
    if retry_after is not None:
        answer.headers["Retry-After"] = retry_after
    return answer


def gaps(server: ScriptedServer) -> list[float]:
    arrivals = [r.at for r in server.received]
    return [b - a for a, b in itertools.pairwise(arrivals)]


class RetryTests:
    def test_it_honours_retry_after_then_succeeds(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(rate_limited("0.2"), Answer(body=completion(content="done")))

        result = chat(config, messages=HELLO, model="gpt-4o")

        assert result.text == "done"
        assert result.attempts == 2
        assert gaps(server)[0] >= 0.2  # measured by the server, between the two arrivals
        assert result.total_ms >= 200

    def test_it_honours_retry_after_ms(self, server: ScriptedServer, config: ProviderConfig) -> None:
        answer = rate_limited()
        answer.headers["retry-after-ms"] = "250"
        server.script(answer, Answer(body=completion()))

        chat(config, messages=HELLO, model="gpt-4o")

        assert gaps(server)[0] >= 0.25

    def test_it_gives_up_on_a_rate_limit_after_max_attempts(
        self, server: ScriptedServer, config: ProviderConfig
    ) -> None:
        server.script(*(rate_limited("0.05") for _ in range(5)))

        with pytest.raises(ProviderError) as caught:
            chat(config, messages=HELLO, model="gpt-4o")

        assert len(server.received) == 3
        assert caught.value.kind == ErrorKind.RATE_LIMITED
        assert caught.value.attempts == 3
        assert caught.value.message.startswith("the provider kept rate-limiting the requests (429) — gave up after 3 ")

    def test_a_retry_after_beyond_the_budget_is_quoted(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(rate_limited("3600"))

        with pytest.raises(ProviderError) as caught:
            chat(config, messages=HELLO, model="gpt-4o")

        assert len(server.received) == 1  # an hour's wait does not fit in the 10 s budget: no second attempt
        assert re.fullmatch(
            r"the provider kept rate-limiting the requests \(429\) — gave up after 1 attempt in 0\.\d s: it asked to "
            r"wait 3600 s \(about 60 min\) before trying again \(Retry-After\), longer than the (9\.\d|10\.0) s left "
            r"of the 10 s retry budget",
            caught.value.message,
        ), caught.value.message

    def test_it_does_not_retry_an_empty_quota(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(openai_error(429, "You exceeded your current quota.", code="insufficient_quota"))

        with pytest.raises(ProviderError) as caught:
            chat(config, messages=HELLO, model="gpt-4o")

        assert len(server.received) == 1
        assert caught.value.kind == ErrorKind.RATE_LIMITED
        assert caught.value.message == "the provider says the account is out of quota (429) — check billing"

    def test_it_retries_a_server_error_then_succeeds(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(openai_error(500, "The server had an error."), Answer(body=completion(content="ok")))

        result = chat(config, messages=HELLO, model="gpt-4o")

        assert (result.text, result.attempts, len(server.received)) == ("ok", 2, 2)

    def test_it_gives_up_on_server_errors(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(*(Answer(503, "Service Unavailable") for _ in range(3)))

        with pytest.raises(ProviderError) as caught:
            chat(config, messages=HELLO, model="gpt-4o")

        assert caught.value.kind == ErrorKind.SERVER_ERROR
        assert caught.value.status_code == 503
        assert caught.value.message.startswith("the provider had a server error (HTTP 503) — gave up after 3 attempts")

    def test_a_retry_after_beyond_the_budget_is_not_waited_for(
        self, server: ScriptedServer, config: ProviderConfig
    ) -> None:
        server.script(rate_limited("30"))
        started = time.monotonic()

        with pytest.raises(ProviderError) as caught:
            chat(replace(config, retry=RetryPolicy(max_attempts=5, max_total_seconds=2)), messages=HELLO, model="m")

        assert time.monotonic() - started < 1
        assert caught.value.kind == ErrorKind.RATE_LIMITED
        assert len(server.received) == 1

    def test_the_total_time_is_bounded(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(*(Answer(502, "Bad Gateway") for _ in range(50)))
        policy = RetryPolicy(max_attempts=50, max_total_seconds=0.6, base_delay=0.1, max_delay=0.2)
        started = time.monotonic()

        with pytest.raises(ProviderError) as caught:
            chat(replace(config, retry=policy), messages=HELLO, model="gpt-4o")

        elapsed = time.monotonic() - started
        assert elapsed < 0.6 + 0.5  # the budget, plus the last quick attempt's own time
        assert 2 <= len(server.received) < 50
        assert caught.value.kind == ErrorKind.SERVER_ERROR

    def test_a_slow_attempt_is_cut_to_the_remaining_budget(
        self, server: ScriptedServer, config: ProviderConfig
    ) -> None:
        server.script(Answer(500, "oops"), Answer(body=completion(), delay=3))
        policy = RetryPolicy(max_attempts=3, max_total_seconds=0.8, base_delay=0.01, max_delay=0.01)
        started = time.monotonic()

        with pytest.raises(ProviderError) as caught:
            chat(replace(config, retry=policy, timeout=60), messages=HELLO, model="gpt-4o")

        assert caught.value.kind == ErrorKind.TIMEOUT
        assert "what was left of the 0.8 s retry budget" in caught.value.message
        assert time.monotonic() - started < 1.5


class RetryAfterTests:
    def test_it_reads_seconds(self) -> None:
        assert retry_after_seconds({"Retry-After": "3"}) == 3.0
        assert retry_after_seconds({"retry-after": "0.5"}) == 0.5

    def test_milliseconds_win(self) -> None:
        assert retry_after_seconds({"retry-after-ms": "1500", "Retry-After": "9"}) == 1.5

    def test_it_reads_an_http_date(self) -> None:
        now = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC)
        header = format_datetime(now + timedelta(seconds=7), usegmt=True)

        assert retry_after_seconds({"Retry-After": header}, now=now) == 7.0

    def test_a_past_date_means_now(self) -> None:
        now = datetime(2025, 6, 1, 12, 0, 0, tzinfo=UTC)

        assert retry_after_seconds({"Retry-After": "Sun, 01 Jun 2025 11:00:00 GMT"}, now=now) == 0.0

    def test_garbage_or_absence_is_none(self) -> None:
        assert retry_after_seconds({"Retry-After": "soon"}) is None
        assert retry_after_seconds({}) is None


class BackoffTests:
    def test_full_jitter_draws_up_to_the_exponential_cap(self) -> None:
        policy = RetryPolicy(base_delay=0.5, max_delay=3)
        bounds: list[tuple[float, float]] = []

        def uniform(low: float, high: float) -> float:
            bounds.append((low, high))
            return high

        delays = [backoff_delay(retry, policy, uniform) for retry in range(5)]

        assert bounds == [(0.0, 0.5), (0.0, 1.0), (0.0, 2.0), (0.0, 3), (0.0, 3)]
        assert delays == [0.5, 1.0, 2.0, 3, 3]

    def test_a_policy_needs_one_attempt(self) -> None:
        with pytest.raises(ValueError):
            RetryPolicy(max_attempts=0)
