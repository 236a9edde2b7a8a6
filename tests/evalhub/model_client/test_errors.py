"""Every failure of a provider call becomes one ProviderError with a message a user can act on."""

from __future__ import annotations

import logging
import pickle
import socket
from dataclasses import replace

import pytest

from evalhub.model_client import ErrorKind, ProviderConfig, ProviderError, chat
from tests.evalhub.model_client.scripted_server import API_KEY, Answer, ScriptedServer, completion, openai_error

HELLO = [{"role": "user", "content": "Hi"}]


def failing_call(config: ProviderConfig, model: str = "gpt-4o") -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        chat(config, messages=HELLO, model=model)
    return caught.value


def assert_no_secret(error: ProviderError) -> None:
    for text in (str(error), repr(error), error.message, error.detail):
        assert API_KEY not in text


class ProviderErrorTests:
    def test_a_rejected_key_says_so_without_quoting_it(self, server: ScriptedServer, config: ProviderConfig) -> None:
        # OpenAI quotes (part of) the key back; this worst case quotes all of it.
        server.script(openai_error(401, f"Incorrect API key provided: {API_KEY}.", code="invalid_api_key"))

        error = failing_call(config)

        assert error.kind == ErrorKind.AUTH
        assert error.message == "the provider rejected the API key (401)"
        assert error.status_code == 401
        assert "***" in error.detail
        assert_no_secret(error)
        assert len(server.received) == 1  # never retried

    def test_a_missing_key_is_named(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(openai_error(401, "You didn't provide an API key."))

        error = failing_call(replace(config, api_key=""))

        assert error.message == "the provider rejected the API key (401) — this provider needs an API key"

    def test_permission_denied(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(
            openai_error(403, "Project `proj_abc` does not have access to model `gpt-4o`", code="model_not_found")
        )

        error = failing_call(config)

        assert error.kind == ErrorKind.PERMISSION
        assert error.message.startswith("the provider refused access to model 'gpt-4o' (403)")
        assert "does not have access" in error.message

    def test_an_unknown_model_names_the_model_and_the_url(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(
            openai_error(
                404, "The model `gpt-5-turbo` does not exist or you do not have access to it.", code="model_not_found"
            )
        )

        error = failing_call(config, model="gpt-5-turbo")

        assert error.kind == ErrorKind.MODEL_NOT_FOUND
        assert error.message == f"model 'gpt-5-turbo' not found at {server.base_url} — check the model name"

    def test_an_unknown_model_is_recognised_from_ollama_words(
        self, server: ScriptedServer, config: ProviderConfig
    ) -> None:
        server.script(Answer(404, {"error": 'model "llama9" not found, try pulling it first'}))

        assert failing_call(config, model="llama9").kind == ErrorKind.MODEL_NOT_FOUND

    def test_a_wrong_path_asks_to_check_the_base_url(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(Answer(404, "404 page not found"))

        error = failing_call(replace(config, base_url=server.base_url.removesuffix("/v1")))

        assert error.kind == ErrorKind.BAD_URL
        assert error.message.endswith("answered 404 — check the base URL, it usually ends in /v1")
        assert server.received[0].path == "/chat/completions"

    def test_an_html_page_is_not_an_openai_compatible_answer(
        self, server: ScriptedServer, config: ProviderConfig
    ) -> None:
        server.script(Answer(200, "<html><body>Welcome to nginx!</body></html>"))

        error = failing_call(config)

        assert error.kind == ErrorKind.BAD_URL
        assert "did not answer like an OpenAI-compatible API" in error.message
        assert "ends in /v1" in error.message

    def test_broken_json_is_not_an_openai_compatible_answer(
        self, server: ScriptedServer, config: ProviderConfig
    ) -> None:
        server.script(Answer(200, {"detail": "Not an OpenAI server"}))

        assert failing_call(config).kind == ErrorKind.BAD_URL

    def test_a_context_too_long(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(
            openai_error(
                400,
                "This model's maximum context length is 128000 tokens. However, your messages resulted in "
                "130512 tokens. Please reduce the length of the messages.",
                code="context_length_exceeded",
                param="messages",
            )
        )

        error = failing_call(config)

        assert error.kind == ErrorKind.CONTEXT_TOO_LONG
        assert error.message.startswith("the conversation is too long for model 'gpt-4o'")
        assert "128000" in error.message

    def test_another_refusal_quotes_the_provider(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(openai_error(400, "Invalid schema for function 'get_weather'.", param="tools[0]"))

        error = failing_call(config)

        assert error.kind == ErrorKind.BAD_REQUEST
        assert error.message == "the provider rejected the request (400): Invalid schema for function 'get_weather'."

    def test_a_slow_provider_times_out_once(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(Answer(body=completion(), delay=2.0))

        error = failing_call(replace(config, timeout=0.3))

        assert error.kind == ErrorKind.TIMEOUT
        assert error.message == f"no answer from {server.base_url} within 0.3 s (the per-call timeout)"
        assert len(server.received) == 1  # a timeout is not retried

    def test_a_refused_connection_is_unreachable_not_a_bad_url(self, config: ProviderConfig) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        # Nothing listens on the port now.
        error = failing_call(replace(config, base_url=f"http://127.0.0.1:{port}/v1"))

        assert error.kind == ErrorKind.UNREACHABLE  # the URL may well be right: nothing answered there
        assert error.message == (
            f"could not connect to http://127.0.0.1:{port}/v1 (connection refused) "
            "— check the base URL and that the server is running"
        )
        assert error.attempts == config.retry.max_attempts

    def test_a_url_without_scheme_is_refused_before_any_call(self, config: ProviderConfig) -> None:
        error = failing_call(replace(config, base_url="localhost:11434/v1"))

        assert error.kind == ErrorKind.BAD_URL
        assert "must start with http:// or https://" in error.message

    def test_an_error_survives_pickling_for_celery(self, server: ScriptedServer, config: ProviderConfig) -> None:
        server.script(openai_error(404, "The model `x` does not exist.", code="model_not_found"))

        error = pickle.loads(pickle.dumps(failing_call(config, model="x")))

        assert (error.kind, error.status_code, error.attempts) == (ErrorKind.MODEL_NOT_FOUND, 404, 1)
        assert error.message == f"model 'x' not found at {server.base_url} — check the model name"

    def test_the_key_never_shows_in_config_repr_errors_or_logs(
        self, server: ScriptedServer, config: ProviderConfig, caplog: pytest.LogCaptureFixture
    ) -> None:
        caplog.set_level(logging.DEBUG)
        secret_header = replace(config, extra_headers={"api-key": API_KEY, "X-Title": "EvalHub"})
        server.script(
            openai_error(500, f"upstream said {API_KEY}"),
            openai_error(500, f"upstream said {API_KEY}"),
            openai_error(500, f"upstream said {API_KEY}"),
        )

        error = failing_call(secret_header)

        assert error.kind == ErrorKind.SERVER_ERROR
        assert_no_secret(error)
        assert API_KEY not in repr(secret_header)
        assert "EvalHub" in repr(secret_header)
        assert API_KEY not in caplog.text
        assert "retry 1 of 2" in caplog.text
