"""Providers' `${VAR}` references: the built-in OpenAI provider keeps reading OPENAI_API_KEY; no other provider
may, nor any EvalHub setting or variable an operator did not allow; a key sent goes to the recording endpoint."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings

from evalhub.providers.models import Provider, ensure_builtin_providers
from evalhub.vault import SecretUnavailable
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion

PROTECTED = "names one of EvalHub's own settings, which are never sent to a server or provider."


def provider_form(**overrides: str) -> dict[str, str]:
    return {
        "name": "Gateway",
        "base_url": "https://llm.example.com/v1",
        "timeout": "30",
        "models_text": "m",
    } | overrides


@pytest.mark.django_db
class ProviderReferenceTests:
    def test_the_builtin_openai_provider_reads_openai_api_key(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-builtin-3f2a")

        ensure_builtin_providers()

        assert Provider.objects.get(name="OpenAI").to_config().api_key == "sk-builtin-3f2a"

    def test_no_other_provider_may(self, monkeypatch: pytest.MonkeyPatch, scripted: ScriptedServer) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-builtin-3f2a")
        provider = Provider(name="Elsewhere", base_url=scripted.base_url, model_names=["m"])
        provider.set_secrets(api_key="${OPENAI_API_KEY}", headers={})
        provider.save()

        with pytest.raises(SecretUnavailable) as refused:
            provider.to_config()

        assert str(refused.value) == f"${{OPENAI_API_KEY}} {PROTECTED}"

    def test_the_form_refuses_settings_and_unlisted_variables(self, alice_client: Client) -> None:
        response = alice_client.post(
            "/settings/providers/new/",
            provider_form(api_key="${SECRET_KEY}", headers_text="X-Team: ${TEAM_TOKEN}"),
        )

        errors = response.context["form"].errors
        assert errors["api_key"] == [f"API key: ${{SECRET_KEY}} {PROTECTED}"]
        assert errors["headers_text"] == [
            "Line 1: X-Team: ${TEAM_TOKEN} is not an allowed environment variable: an operator must add TEAM_TOKEN to "
            "EVALHUB_SECRET_ENV_ALLOWLIST (on the web app and the worker) before a secret may reference it."
        ]
        assert not Provider.objects.filter(name="Gateway").exists()

    @override_settings(EVALHUB_SECRET_ENV_ALLOWLIST=["TEAM_*"])
    def test_an_allowed_variable_is_sent_as_the_key(
        self, alice_client: Client, scripted: ScriptedServer, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("TEAM_LLM_KEY", "sk-team-81c0")
        alice_client.post(
            "/settings/providers/new/", provider_form(base_url=scripted.base_url, api_key="${TEAM_LLM_KEY}")
        )
        scripted.script(Answer(body=completion(content="OK")))

        alice_client.post(f"/settings/providers/{Provider.objects.get(name='Gateway').pk}/test/", {"model": "m"})

        assert scripted.received[0].headers["authorization"] == "Bearer sk-team-81c0"
