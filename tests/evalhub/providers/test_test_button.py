"""The Test button: the real openai SDK against a scripted OpenAI-compatible endpoint, and the offline model."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client, override_settings

from evalhub.providers.models import Provider, offline_provider
from tests.base import make_scripted_provider
from tests.evalhub.model_client.scripted_server import API_KEY, Answer, ScriptedServer, completion, openai_error


@pytest.fixture
def scripted() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    yield server
    server.close()


def press_test(client: Client, provider: Provider, model: str = "gpt-4o", **headers: Any) -> Any:
    return client.post(f"/settings/providers/{provider.pk}/test/", {"model": model}, HTTP_HX_REQUEST="true", **headers)


def text(response: Any) -> str:
    return " ".join(response.content.decode().split())


@pytest.mark.django_db
class ProviderTestButtonTests:
    def test_a_provider_added_through_the_form_passes_its_test(
        self, alice_client: Client, scripted: ScriptedServer
    ) -> None:
        alice_client.post(
            "/settings/providers/new/",
            {
                "name": "Scripted",
                "base_url": scripted.base_url,
                "api_key": API_KEY,
                "headers_text": "X-Title: EvalHub\nX-Api-Token: header-secret-55",
                "timeout": "10",
                "models_text": "gpt-4o",
                "prices_text": "",
            },
        )
        provider = Provider.objects.get(name="Scripted")
        scripted.script(Answer(body=completion(content="O", completion_tokens=1, finish_reason="length")))

        response = press_test(alice_client, provider)

        assert response.status_code == 200
        assert re.search(r"OK</span> answered in <strong>\d+ ms</strong>", response.content.decode())
        (request,) = scripted.received
        assert request.headers["authorization"] == f"Bearer {API_KEY}"
        assert request.headers["x-api-token"] == "header-secret-55"
        assert request.headers["x-title"] == "EvalHub"
        assert request.json["max_tokens"] == 1
        provider.refresh_from_db()
        assert provider.last_test is not None
        assert provider.last_test["ok"] is True and provider.last_test["model"] == "gpt-4o"
        assert provider.last_test["latency_ms"] >= 0

    def test_only_the_models_fragment_comes_back(self, alice_client: Client, scripted: ScriptedServer) -> None:
        provider = make_scripted_provider(scripted.base_url)
        scripted.script(Answer(body=completion()))

        html = press_test(alice_client, provider).content.decode()

        assert html.lstrip().startswith(f'<div id="provider-{provider.pk}-models"')
        assert "<html" not in html and "Model providers" not in html

    def test_a_rejected_key_says_so(self, alice_client: Client, scripted: ScriptedServer) -> None:
        provider = make_scripted_provider(scripted.base_url)
        scripted.script(openai_error(401, f"Incorrect API key provided: {API_KEY}."))

        response = press_test(alice_client, provider)

        assert "failed</span> the provider rejected the API key (401)" in text(response)
        assert API_KEY not in response.content.decode()
        provider.refresh_from_db()
        assert provider.last_test is not None
        assert provider.last_test["kind"] == "auth"
        assert API_KEY not in str(provider.last_test)

    def test_an_unknown_model_says_so(self, alice_client: Client, scripted: ScriptedServer) -> None:
        provider = make_scripted_provider(scripted.base_url, model_names=["gpt-40"])
        scripted.script(openai_error(404, "The model `gpt-40` does not exist.", code="model_not_found"))

        response = press_test(alice_client, provider, model="gpt-40")

        assert f"model &#x27;gpt-40&#x27; not found at {scripted.base_url} — check the model name" in text(response)

    def test_a_wrong_url_says_so(self, alice_client: Client, scripted: ScriptedServer) -> None:
        provider = make_scripted_provider(scripted.base_url.removesuffix("/v1") + "/wrong")
        scripted.script(Answer(404, "<html>Not Found</html>"))

        response = press_test(alice_client, provider)

        assert "answered 404 — check the base URL, it usually ends in /v1" in text(response)

    def test_a_server_that_is_not_running_says_so(self, alice_client: Client) -> None:
        provider = make_scripted_provider("http://127.0.0.1:9/v1")

        response = press_test(alice_client, provider)

        assert "could not connect to http://127.0.0.1:9/v1 (connection refused)" in text(response)
        provider.refresh_from_db()
        assert provider.last_test["kind"] == "unreachable"  # not bad_url: the URL may be right, the server down

    def test_a_slow_answer_times_out(self, alice_client: Client, scripted: ScriptedServer) -> None:
        provider = make_scripted_provider(scripted.base_url, timeout=0.3)
        scripted.script(Answer(body=completion(), delay=2))

        response = press_test(alice_client, provider)

        assert f"no answer from {scripted.base_url} within 0.3 s (the per-call timeout)" in text(response)
        assert len(scripted.received) == 1  # the button tries once

    def test_a_server_error_is_tried_once(self, alice_client: Client, scripted: ScriptedServer) -> None:
        provider = make_scripted_provider(scripted.base_url)
        scripted.script(openai_error(500, "boom"), Answer(body=completion()))

        response = press_test(alice_client, provider)

        assert "the provider had a server error (HTTP 500)" in text(response)
        assert len(scripted.received) == 1

    def test_the_offline_model_works_with_no_key(self, alice_client: Client) -> None:
        provider = offline_provider()

        response = press_test(alice_client, provider, model="evalhub-offline")

        assert re.search(r"OK</span> answered in <strong>\d+ ms</strong>", response.content.decode())

    @override_settings(EVALHUB_SECRET_ENV_ALLOWLIST=["MISSING_KEY_FOR_TESTS"])
    def test_a_missing_environment_variable_is_explained(
        self,
        alice_client: Client,
        scripted: ScriptedServer,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        monkeypatch.delenv("MISSING_KEY_FOR_TESTS", raising=False)
        provider = make_scripted_provider(scripted.base_url)
        provider.set_secrets(api_key="${MISSING_KEY_FOR_TESTS}", headers={})
        provider.save()

        response = press_test(alice_client, provider)

        assert "The environment variable MISSING_KEY_FOR_TESTS is not set" in text(response)
        assert scripted.received == []

    def test_without_htmx_it_redirects_with_a_message(self, alice_client: Client, scripted: ScriptedServer) -> None:
        provider = make_scripted_provider(scripted.base_url)
        scripted.script(openai_error(401, "Incorrect API key provided."))

        response = alice_client.post(f"/settings/providers/{provider.pk}/test/", {"model": "gpt-4o"}, follow=True)

        assert response.redirect_chain == [(f"/settings/#provider-{provider.pk}", 302)]
        assert "Scripted: gpt-4o failed the test — the provider rejected the API key (401)." in text(response)

    def test_bob_may_test(self, bob_client: Client, scripted: ScriptedServer) -> None:
        provider = make_scripted_provider(scripted.base_url)
        scripted.script(Answer(body=completion()))

        response = press_test(bob_client, provider)

        assert "answered in" in text(response)
        assert "/edit/" not in response.content.decode()

    def test_a_model_the_provider_does_not_list_is_refused(
        self, alice_client: Client, scripted: ScriptedServer
    ) -> None:
        provider = make_scripted_provider(scripted.base_url)

        response = press_test(alice_client, provider, model="not-listed")

        assert response.status_code == 400
        assert scripted.received == []

    def test_it_rejects_get(self, alice_client: Client) -> None:
        assert alice_client.get(f"/settings/providers/{offline_provider().pk}/test/").status_code == 405

    def test_the_key_is_never_logged(
        self, alice_client: Client, scripted: ScriptedServer, caplog: pytest.LogCaptureFixture
    ) -> None:
        caplog.set_level(logging.DEBUG)
        alice_client.post(
            "/settings/providers/new/",
            {
                "name": "Scripted",
                "base_url": scripted.base_url,
                "api_key": API_KEY,
                "timeout": "10",
                "models_text": "gpt-4o",
                "headers_text": "Authorization: Bearer hdr-tok-31337",
            },
        )
        provider = Provider.objects.get(name="Scripted")
        scripted.script(openai_error(401, f"Incorrect API key provided: {API_KEY}"), Answer(body=completion()))

        press_test(alice_client, provider)
        press_test(alice_client, provider)

        assert len(scripted.received) == 2
        assert caplog.records, "expected the SDK's debug logs to be captured"
        assert API_KEY not in caplog.text and "hdr-tok-31337" not in caplog.text
