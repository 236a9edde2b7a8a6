"""The Settings page: the providers list, the models EvalHub uses, and the way to the API keys."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from evalhub import vault
from evalhub.providers.model_choices import model_value
from evalhub.providers.models import Provider, SiteSettings, offline_provider

ENV_KEY = "sk-proj-FROM-THE-ENVIRONMENT-0123456789"


@pytest.fixture(autouse=True)
def no_openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's own key must not change what these tests see.
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def provider_section(html: str, provider: Provider) -> str:
    match = re.search(rf'<article class="provider" id="provider-{provider.pk}".*?</article>', html, re.DOTALL)
    assert match, f"no section for {provider.name}"
    return match.group(0)


def model_row(html: str, model: str) -> str:
    match = re.search(rf'<tr data-model="{re.escape(model)}">.*?</tr>', html, re.DOTALL)
    assert match, f"no row for {model}"
    return " ".join(match.group(0).split())


@pytest.mark.django_db
class SettingsPageTests:
    def test_it_requires_login(self, client: Client) -> None:
        assert client.get("/settings/")["Location"] == "/login/?next=/settings/"

    def test_the_offline_provider_is_there_labelled_as_a_smoke_test_agent(self, alice_client: Client) -> None:
        html = alice_client.get("/settings/").content.decode()

        section = provider_section(html, offline_provider())
        assert "EvalHub offline" in section
        assert "rule-based agent for smoke tests" in section
        assert "built in" in section
        assert "Delete" not in section and "Edit" not in section
        assert ">Test<" in model_row(section, "evalhub-offline")
        assert "free" in model_row(section, "evalhub-offline")

    def test_alice_can_add_edit_and_delete(self, alice_client: Client) -> None:
        provider = Provider.objects.create(name="Local vLLM", base_url="http://localhost:8000/v1", model_names=["m"])

        html = alice_client.get("/settings/").content.decode()

        assert 'href="/settings/providers/new/"' in html
        section = provider_section(html, provider)
        assert f'href="/settings/providers/{provider.pk}/edit/"' in section
        assert f'href="/settings/providers/{provider.pk}/delete/"' in section
        assert 'action="/settings/models/"' in html

    def test_bob_sees_the_list_read_only(self, bob_client: Client) -> None:
        provider = Provider.objects.create(name="Local vLLM", base_url="http://localhost:8000/v1", model_names=["m"])

        html = bob_client.get("/settings/").content.decode()

        assert "Local vLLM" in html
        assert "/settings/providers/new/" not in html
        assert f"/settings/providers/{provider.pk}/edit/" not in html
        assert f"/settings/providers/{provider.pk}/delete/" not in html
        assert 'action="/settings/models/"' not in html
        assert "Only staff can change model providers" in html
        assert "none — built-in templates write scorer code" in html
        # Testing is not changing: bob may still check that a provider works.
        assert f'hx-post="/settings/providers/{provider.pk}/test/"' in html

    def test_a_provider_shows_that_a_key_is_set_but_not_the_key(self, alice_client: Client) -> None:
        provider = Provider(name="Gateway", base_url="https://llm.example.com/v1", model_names=["gpt-4o"])
        provider.headers = {"X-Title": "EvalHub"}
        provider.set_secrets(api_key="sk-secret-abcdef123", headers={"Authorization": "Bearer tok-secret-9"})
        provider.save()

        section = provider_section(alice_client.get("/settings/").content.decode(), provider)

        assert "•••• set" in section
        assert "X-Title" in section and "Authorization: ••••" in section
        assert "sk-secret-abcdef123" not in section and "tok-secret-9" not in section

    def test_openai_from_the_environment_appears_without_clicking(
        self, alice_client: Client, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)

        html = alice_client.get("/settings/").content.decode()

        provider = Provider.objects.get(name="OpenAI")
        section = provider_section(html, provider)
        assert "from OPENAI_API_KEY in the environment" in section
        assert "•••• from ${OPENAI_API_KEY}" in section
        assert ENV_KEY not in html
        # Only the reference is stored; the key itself stays in the environment.
        assert vault.unseal(provider.sealed_secrets) == {"api_key": "${OPENAI_API_KEY}"}
        assert provider.to_config().api_key == ENV_KEY
        assert "Delete" not in section

    def test_known_models_are_priced_from_genai_prices(self, alice_client: Client) -> None:
        Provider.objects.create(name="OpenAI API", base_url="https://api.openai.com/v1", model_names=["gpt-4o"])
        Provider.objects.create(
            name="Anthropic", base_url="https://api.anthropic.com/v1/", model_names=["claude-sonnet-4-5"]
        )

        html = alice_client.get("/settings/").content.decode()

        assert "$2.50 in / $10.00 out" in model_row(html, "gpt-4o")
        assert "genai-prices" in model_row(html, "gpt-4o")
        assert "$3.00 in / $15.00 out" in model_row(html, "claude-sonnet-4-5")
        assert "genai-prices" in model_row(html, "claude-sonnet-4-5")

    def test_an_override_wins_and_an_unpriced_model_is_unknown(self, alice_client: Client) -> None:
        Provider.objects.create(
            name="Ollama",
            base_url="http://localhost:11434/v1",
            # Local servers get no list price: a local "gpt-4o" is not OpenAI's.
            model_names=["llama3.1:8b", "gpt-4o", "cheap"],
            price_overrides={"cheap": {"input": "0.075", "output": "0.3"}},
        )

        html = alice_client.get("/settings/").content.decode()

        assert "unknown" in model_row(html, "llama3.1:8b")
        assert "unknown" in model_row(html, "gpt-4o")
        cheap = model_row(html, "cheap")
        assert "$0.075 in / $0.30 out" in cheap and "your price" in cheap

    def test_the_last_test_is_shown_on_its_models_row(self, alice_client: Client) -> None:
        Provider.objects.create(
            name="Gateway",
            base_url="https://llm.example.com/v1",
            model_names=["a-model", "b-model"],
            last_test={
                "ok": False,
                "model": "b-model",
                "kind": "auth",
                "at": "2025-01-01T00:00:00+00:00",
                "message": "the provider rejected the API key (401)",
            },
        )

        html = alice_client.get("/settings/").content.decode()

        assert "the provider rejected the API key (401)" in model_row(html, "b-model")
        assert "rejected" not in model_row(html, "a-model")

    def test_it_links_to_the_api_keys_page(self, alice_client: Client) -> None:
        html = alice_client.get("/settings/").content.decode()

        assert 'href="/settings/api-keys/"' in html


@pytest.mark.django_db
class SiteSettingsEditTests:
    def test_the_model_lists_are_grouped_by_provider(self, alice_client: Client) -> None:
        Provider.objects.create(name="Gateway", base_url="https://llm.example.com/v1", model_names=["gpt-4o"])

        html = alice_client.get("/settings/").content.decode()

        select = re.search(r'<select name="judge_choice".*?</select>', html, re.DOTALL)
        assert select
        assert '<optgroup label="Gateway">' in select.group(0)
        assert "EvalHub offline" not in select.group(0)  # it cannot judge
        generation = re.search(r'<select name="generation_choice".*?</select>', html, re.DOTALL)
        assert generation and '<optgroup label="EvalHub offline — rule-based, for smoke tests">' in generation.group(0)
        assert "— none: choose a model for each judge —" in select.group(0)
        assert "Empty: each judge needs its own model." in html
        assert "built-in templates write them instead" in html

    def test_alice_picks_the_models_evalhub_uses(self, alice_client: Client) -> None:
        gateway = Provider.objects.create(name="Gateway", base_url="https://llm.example.com/v1", model_names=["m1"])

        offline = model_value(offline_provider(), "evalhub-offline")

        response = alice_client.post(
            "/settings/models/", {"generation_choice": offline, "judge_choice": model_value(gateway, "m1")}
        )

        assert response.status_code == 302
        assert response["Location"] == "/settings/#models"
        site = SiteSettings.load()
        assert (site.generation_provider, site.generation_model) == (offline_provider(), "evalhub-offline")
        assert (site.judge_provider, site.judge_model) == (gateway, "m1")
        html = alice_client.get("/settings/").content.decode()
        assert f'<option value="{gateway.pk}:m1" selected>' in html

    def test_empty_means_none(self, alice_client: Client) -> None:
        gateway = Provider.objects.create(name="Gateway", base_url="https://llm.example.com/v1", model_names=["m1"])
        SiteSettings.objects.create(pk=1, generation_provider=gateway, generation_model="m1")

        alice_client.post("/settings/models/", {"generation_choice": "", "judge_choice": ""})

        site = SiteSettings.load()
        assert (site.generation_provider, site.generation_model) == (None, "")

    def test_a_model_not_on_offer_is_refused(self, alice_client: Client) -> None:
        gateway = Provider.objects.create(name="Gateway", base_url="https://llm.example.com/v1", model_names=["m1"])

        response = alice_client.post(
            "/settings/models/", {"generation_choice": f"{gateway.pk}:gone", "judge_choice": ""}
        )

        assert response.status_code == 200
        assert "Select a valid choice." in response.content.decode()
        assert SiteSettings.load().generation_model == ""

    def test_a_model_its_provider_no_longer_lists_stays_chosen(self, alice_client: Client) -> None:
        gateway = Provider.objects.create(name="Gateway", base_url="https://llm.example.com/v1", model_names=["m1"])
        SiteSettings.objects.create(pk=1, judge_provider=gateway, judge_model="retired")

        html = alice_client.get("/settings/").content.decode()
        alice_client.post("/settings/models/", {"generation_choice": "", "judge_choice": f"{gateway.pk}:retired"})

        assert '<optgroup label="No longer listed by its provider">' in html
        assert f'<option value="{gateway.pk}:retired" selected>retired</option>' in html
        assert SiteSettings.load().judge_model == "retired"

    def test_bob_cannot_change_them(self, bob_client: Client) -> None:
        value = model_value(offline_provider(), "evalhub-offline")

        response = bob_client.post("/settings/models/", {"generation_choice": value, "judge_choice": ""})

        assert response.status_code == 403
        assert SiteSettings.load().generation_provider is None

    def test_it_rejects_get(self, alice_client: Client) -> None:
        assert alice_client.get("/settings/models/").status_code == 405
