"""A provider that sends its answer a byte at a time cannot outlive the per-call timeout (issue 18, finding 3).

httpx's timeouts are per read: each byte arriving within the timeout kept the call alive for as long as the
provider liked. The scripted endpoint here drips the whole response, status line first, one byte every 50 ms:
about 45 s for a completion, so a call that is not cut off fails these tests by finishing, late and successful.
"""

from __future__ import annotations

import re
import time
from dataclasses import replace

import pytest

from evalhub.model_client import ErrorKind, ProviderClient, ProviderConfig, ProviderError, chat
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion

HELLO = [{"role": "user", "content": "Hi"}]
DRIP = 0.05


def dripping(**kwargs: object) -> Answer:
    return Answer(body=completion(**kwargs), drip=DRIP)  # type: ignore[arg-type]


class TotalDeadlineTests:
    def test_a_dripping_answer_ends_at_the_per_call_timeout(
        self, server: ScriptedServer, config: ProviderConfig
    ) -> None:
        server.script(dripping())
        started = time.monotonic()

        with pytest.raises(ProviderError) as caught:
            chat(replace(config, timeout=1), messages=HELLO, model="gpt-4o")

        assert time.monotonic() - started < 1.8
        assert caught.value.kind == ErrorKind.TIMEOUT
        assert re.fullmatch(
            rf"{re.escape(server.base_url)} started answering but had not finished within 1 s \(the per-call "
            r"timeout\) \(\d+ bytes received\)",
            caught.value.message,
        ), caught.value.message
        assert len(server.received) == 1  # a timeout is not retried

    def test_the_caller_s_deadline_bounds_the_call_and_is_named(
        self, server: ScriptedServer, config: ProviderConfig
    ) -> None:
        server.script(dripping())
        started = time.monotonic()

        with ProviderClient(replace(config, timeout=30)) as client, pytest.raises(ProviderError) as caught:
            client.chat(messages=HELLO, model="gpt-4o", deadline=time.monotonic() + 1.2)

        assert time.monotonic() - started < 2.0
        assert "within 1.2 s (what was left of the overall time budget)" in caught.value.message

    def test_an_answer_in_time_is_unaffected(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(Answer(body=completion(content="Bonjour")), Answer(body=completion(content="Encore")))

        with ProviderClient(replace(config, timeout=2)) as client:
            first = client.chat(messages=HELLO, model="gpt-4o")
            second = client.chat(messages=HELLO, model="gpt-4o")  # the kept-alive connection, a new deadline

        assert (first.text, second.text) == ("Bonjour", "Encore")
