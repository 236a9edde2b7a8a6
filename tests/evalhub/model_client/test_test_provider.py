"""test_provider(): the Settings page's "Test" button."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from evalhub.model_client import ErrorKind, ProviderConfig, ProviderError, offline_config, test_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, openai_error


class TestButtonTests:
    def test_it_sends_one_token_and_returns_the_latency(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(Answer(body=completion(content="O", completion_tokens=1, finish_reason="length")))

        latency_ms = test_provider(config, "gpt-4o")

        assert latency_ms > 0
        (request,) = server.received
        assert request.json["max_tokens"] == 1
        assert request.json["model"] == "gpt-4o"

    def test_it_raises_the_human_message(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(openai_error(401, "Incorrect API key provided."))

        with pytest.raises(ProviderError) as caught:
            test_provider(config, "gpt-4o")

        assert caught.value.kind == ErrorKind.AUTH
        assert str(caught.value) == "the provider rejected the API key (401)"

    def test_a_model_that_refuses_one_token_still_passes(self, server: ScriptedServer, config: ProviderConfig) -> None:
        # Reasoning models can refuse so small a budget; the key, URL and model were accepted all the same.
        server.script(
            openai_error(
                400,
                "Could not finish the message because max_tokens or model output limit was reached.",
                code="invalid_request_error",
            )
        )

        assert test_provider(config, "o3-mini") > 0

    def test_it_reports_an_unknown_model(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(openai_error(404, "The model `gpt-40` does not exist.", code="model_not_found"))

        with pytest.raises(ProviderError) as caught:
            test_provider(replace(config, retry=config.retry), "gpt-40")

        assert caught.value.message == f"model 'gpt-40' not found at {server.base_url} — check the model name"

    def test_a_dripping_provider_answers_within_the_timeout(
        self, server: ScriptedServer, config: ProviderConfig
    ) -> None:
        # The audit's case: with a 10 s timeout the button had not answered after 45 s.
        server.script(Answer(body=completion(content="O", completion_tokens=1), drip=0.05))
        started = time.monotonic()

        with pytest.raises(ProviderError) as caught:
            test_provider(replace(config, timeout=1), "gpt-4o")

        assert time.monotonic() - started < 1.8
        assert caught.value.kind == ErrorKind.TIMEOUT

    def test_the_offline_model_passes(self) -> None:
        assert test_provider(offline_config(), "evalhub-offline") > 0
