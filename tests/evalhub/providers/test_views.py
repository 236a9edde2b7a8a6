"""Settings → Providers: add, edit and delete a provider through the views."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, RequestFactory, override_settings

from evalhub.providers.models import Provider, SiteSettings, offline_provider
from evalhub.providers.views import provider_create
from tests.base import make_demo_server, make_scenario

KEY = "sk-live-DO-NOT-SHOW-4242424242"
HEADER_SECRET = "hdr-secret-7777777777"


def form_data(**overrides: Any) -> dict[str, Any]:
    return {
        "name": "Ollama on my laptop",
        "base_url": "http://localhost:11434/v1",
        "api_key": "",
        "headers_text": "",
        "timeout": "30",
        "models_text": "llama3.1:8b\nqwen2.5:7b",
        "prices_text": "",
        **overrides,
    }


def make_provider(**overrides: Any) -> Provider:
    fields: dict[str, Any] = {
        "name": "Gateway",
        "base_url": "https://llm.example.com/v1",
        "model_names": ["gpt-4o", "my-model"],
        "headers": {"X-Title": "EvalHub"},
        **overrides,
    }
    provider = Provider(**fields)
    provider.set_secrets(api_key=KEY, headers={"api-key": HEADER_SECRET})
    provider.save()
    return provider


@pytest.mark.django_db
class ProviderCreateTests:
    def test_it_creates_a_provider_with_an_encrypted_key(self, alice_client: Client) -> None:
        response = alice_client.post(
            "/settings/providers/new/",
            form_data(api_key=KEY, headers_text="X-Title: EvalHub\napi-key: " + HEADER_SECRET),
        )

        provider = Provider.objects.get(name="Ollama on my laptop")
        assert response.status_code == 302
        assert response["Location"] == f"/settings/#provider-{provider.pk}"
        assert provider.model_names == ["llama3.1:8b", "qwen2.5:7b"]
        assert provider.timeout == 30
        assert provider.kind == Provider.Kind.OPENAI_COMPATIBLE
        assert provider.headers == {"X-Title": "EvalHub"}
        assert provider.secrets() == {"api_key": KEY, "headers": {"api-key": HEADER_SECRET}}
        assert KEY not in provider.sealed_secrets and HEADER_SECRET not in provider.sealed_secrets
        config = provider.to_config()
        assert config.api_key == KEY and config.extra_headers["api-key"] == HEADER_SECRET

    @override_settings(EVALHUB_SECRET_ENV_ALLOWLIST=["MY_LLM_KEY"])
    def test_an_environment_reference_stores_no_key(self, alice_client: Client) -> None:
        alice_client.post("/settings/providers/new/", form_data(api_key="${MY_LLM_KEY}"))

        provider = Provider.objects.get(name="Ollama on my laptop")
        assert provider.secrets()["api_key"] == "${MY_LLM_KEY}"

    @override_settings(EVALHUB_SECRET_ENV_ALLOWLIST=["NOT_SET_*"])
    def test_a_reference_to_an_unset_variable_saves_with_a_warning(self, alice_client: Client) -> None:
        response = alice_client.post("/settings/providers/new/", form_data(api_key="${NOT_SET_ANYWHERE}"), follow=True)

        assert "NOT_SET_ANYWHERE is not set" in response.content.decode()
        assert Provider.objects.filter(name="Ollama on my laptop").exists()

    def test_a_local_server_needs_no_key(self, alice_client: Client) -> None:
        alice_client.post("/settings/providers/new/", form_data())

        assert Provider.objects.get(name="Ollama on my laptop").secrets()["api_key"] == ""

    def test_the_form_shows_base_url_examples(self, alice_client: Client) -> None:
        html = alice_client.get("/settings/providers/new/").content.decode()

        for example in [
            "https://api.openai.com/v1",
            "openai.azure.com/openai/v1",
            "http://localhost:11434/v1",
            "http://localhost:8000/v1",
            "http://localhost:1234/v1",
            "http://localhost:4000/v1",
            "https://openrouter.ai/api/v1",
            "https://api.anthropic.com/v1/",
            "https://generativelanguage.googleapis.com/v1beta/openai/",
        ]:
            assert example in html
        assert 'type="password"' in html

    @pytest.mark.parametrize(
        ("url", "error"),
        [
            ("localhost:11434/v1", "Start with http:// or https://"),
            ("ftp://example.com/v1", "Start with http:// or https://"),
            ("https://user:pw@example.com/v1", "not in the URL"),
        ],
    )
    def test_it_rejects_a_bad_base_url(self, alice_client: Client, url: str, error: str) -> None:
        response = alice_client.post("/settings/providers/new/", form_data(base_url=url))

        assert response.status_code == 200
        assert error in response.content.decode()
        assert not Provider.objects.filter(name="Ollama on my laptop").exists()

    def test_a_container_host_name_is_a_valid_base_url(self, alice_client: Client) -> None:
        # Docker Compose names have no dot; Django's URLValidator would refuse them.
        alice_client.post("/settings/providers/new/", form_data(base_url="http://vllm:8000/v1"))

        assert Provider.objects.get(name="Ollama on my laptop").base_url == "http://vllm:8000/v1"

    def test_it_needs_at_least_one_model(self, alice_client: Client) -> None:
        response = alice_client.post("/settings/providers/new/", form_data(models_text="  \n"))

        assert "This field is required." in response.content.decode()
        assert not Provider.objects.filter(name="Ollama on my laptop").exists()

    def test_a_model_name_with_spaces_is_refused_by_line(self, alice_client: Client) -> None:
        response = alice_client.post("/settings/providers/new/", form_data(models_text="gpt-4o\ngpt 4o mini"))

        assert "Line 2: “gpt 4o mini” has spaces; write one model per line." in response.content.decode()

    def test_a_failed_form_never_sends_the_key_or_secret_headers_back(self, alice_client: Client) -> None:
        response = alice_client.post(
            "/settings/providers/new/",
            form_data(base_url="nope", api_key=KEY, headers_text=f"Authorization: Bearer {HEADER_SECRET}\nX-Title: A"),
        )

        html = response.content.decode()
        assert "Start with http://" in html
        assert KEY not in html and HEADER_SECRET not in html
        assert "Type the API key again" in html
        assert "Authorization: ••••" in html and "X-Title: A" in html

    def test_the_key_is_kept_out_of_error_reports(self, alice: User) -> None:
        request = RequestFactory().post("/settings/providers/new/", form_data(api_key=KEY, base_url="nope"))
        request.user = alice

        provider_create(request)

        assert set(request.sensitive_post_parameters) == {"api_key", "headers_text"}  # type: ignore[attr-defined]

    def test_bob_cannot_add_a_provider(self, bob_client: Client) -> None:
        assert bob_client.get("/settings/providers/new/").status_code == 403
        assert bob_client.post("/settings/providers/new/", form_data()).status_code == 403
        assert not Provider.objects.filter(name="Ollama on my laptop").exists()

    def test_the_name_must_be_unique(self, alice_client: Client) -> None:
        make_provider(name="Ollama on my laptop")

        response = alice_client.post("/settings/providers/new/", form_data())

        assert "Provider with this Name already exists." in response.content.decode()


@pytest.mark.django_db
class ProviderHeaderTests:
    @pytest.mark.parametrize(
        ("text", "error"),
        [
            ("X-Title EvalHub", "Line 1: write it as `Name: value`."),
            ("X-Title: A\nBad Name: x", "Line 2: “Bad Name” is not a header name"),
            ("Content-Type: text/plain", "Line 1: Content-Type is set by EvalHub itself."),
            ("X-A: 1\n\nx-a: 2", "Line 3: x-a is given twice."),
            ("X-Empty:", "Line 1: X-Empty has no value."),
            ("api-key: ••••", "Line 1: type the value of api-key"),
        ],
    )
    def test_bad_header_lines_are_named_by_line(self, alice_client: Client, text: str, error: str) -> None:
        response = alice_client.post("/settings/providers/new/", form_data(headers_text=text))

        assert error in response.content.decode()

    @override_settings(EVALHUB_SECRET_ENV_ALLOWLIST=["TEAM_ID"])
    def test_an_environment_reference_in_any_header_is_sealed(self, alice_client: Client) -> None:
        alice_client.post("/settings/providers/new/", form_data(headers_text="X-Team: ${TEAM_ID}"))

        provider = Provider.objects.get(name="Ollama on my laptop")
        assert provider.headers == {}
        assert provider.secrets()["headers"] == {"X-Team": "${TEAM_ID}"}


@pytest.mark.django_db
class ProviderEditTests:
    def edit(self, client: Client, provider: Provider, **overrides: Any) -> Any:
        fields = {
            "name": provider.name,
            "base_url": provider.base_url,
            "headers_text": "X-Title: EvalHub\napi-key: ••••",
            "models_text": "\n".join(provider.model_names),
            **overrides,
        }
        data = form_data(**fields)
        return client.post(f"/settings/providers/{provider.pk}/edit/", data)

    def test_the_form_shows_that_a_key_is_set_but_never_the_key(self, alice_client: Client) -> None:
        provider = make_provider()

        html = alice_client.get(f"/settings/providers/{provider.pk}/edit/").content.decode()

        assert "•••• set — leave empty to keep it" in html
        assert "Remove the stored API key" in html
        assert "api-key: ••••" in html and "X-Title: EvalHub" in html
        assert KEY not in html and HEADER_SECRET not in html

    def test_a_blank_key_keeps_the_stored_key_and_header(self, alice_client: Client) -> None:
        provider = make_provider()

        response = self.edit(alice_client, provider, timeout="12")

        assert response.status_code == 302
        provider.refresh_from_db()
        assert provider.timeout == 12
        assert provider.secrets() == {"api_key": KEY, "headers": {"api-key": HEADER_SECRET}}
        assert provider.headers == {"X-Title": "EvalHub"}

    def test_a_new_key_replaces_the_old_one(self, alice_client: Client) -> None:
        provider = make_provider()

        self.edit(alice_client, provider, api_key="sk-new")

        provider.refresh_from_db()
        assert provider.secrets()["api_key"] == "sk-new"

    def test_the_checkbox_clears_the_key(self, alice_client: Client) -> None:
        provider = make_provider()

        self.edit(alice_client, provider, clear_api_key="on")

        provider.refresh_from_db()
        assert provider.secrets()["api_key"] == ""
        assert provider.secrets()["headers"] == {"api-key": HEADER_SECRET}

    def test_removing_a_secret_header_line_removes_it(self, alice_client: Client) -> None:
        provider = make_provider()

        self.edit(alice_client, provider, headers_text="X-Title: EvalHub")

        provider.refresh_from_db()
        assert provider.secrets()["headers"] == {}

    def test_a_model_used_by_a_scenario_must_stay(self, alice_client: Client) -> None:
        provider = make_provider()
        make_scenario(make_demo_server(), provider=provider, model="my-model", name="Tickets")

        response = self.edit(alice_client, provider, models_text="gpt-4o")

        assert "my-model is used by scenario “Tickets”" in response.content.decode()
        provider.refresh_from_db()
        assert provider.model_names == ["gpt-4o", "my-model"]

    def test_changing_the_connection_forgets_the_last_test(self, alice_client: Client) -> None:
        provider = make_provider(last_test={"ok": True, "model": "gpt-4o", "latency_ms": 5, "at": "2025-01-01T00:00"})

        self.edit(alice_client, provider, base_url="https://other.example.com/v1")

        provider.refresh_from_db()
        assert provider.last_test is None

    def test_changing_a_price_keeps_the_last_test(self, alice_client: Client) -> None:
        provider = make_provider(last_test={"ok": True, "model": "gpt-4o", "latency_ms": 5, "at": "2025-01-01T00:00"})

        self.edit(alice_client, provider, prices_text="my-model = 1 / 2")

        provider.refresh_from_db()
        assert provider.last_test is not None
        assert provider.price_overrides == {"my-model": {"input": "1", "output": "2"}}

    def test_the_environment_openai_provider_keeps_its_name(
        self, alice_client: Client, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-123456")
        alice_client.get("/settings/")
        provider = Provider.objects.get(name="OpenAI")

        response = alice_client.post(
            f"/settings/providers/{provider.pk}/edit/",
            form_data(name="Renamed", base_url=provider.base_url, models_text="gpt-4.1-mini\ngpt-5-mini", timeout="60"),
        )

        assert response.status_code == 302
        provider.refresh_from_db()
        assert provider.name == "OpenAI"
        assert provider.model_names == ["gpt-4.1-mini", "gpt-5-mini"]
        assert provider.secrets()["api_key"] == "${OPENAI_API_KEY}"

    def test_the_offline_provider_has_nothing_to_edit(self, alice_client: Client) -> None:
        response = alice_client.get(f"/settings/providers/{offline_provider().pk}/edit/")

        assert response.status_code == 302

    def test_bob_cannot_edit(self, bob_client: Client) -> None:
        provider = make_provider()

        assert bob_client.get(f"/settings/providers/{provider.pk}/edit/").status_code == 403
        assert bob_client.post(f"/settings/providers/{provider.pk}/edit/", form_data()).status_code == 403


@pytest.mark.django_db
class ProviderDeleteTests:
    def test_it_deletes_an_unused_provider(self, alice_client: Client) -> None:
        provider = make_provider()
        SiteSettings.objects.create(pk=1, judge_provider=provider, judge_model="gpt-4o")

        page = alice_client.get(f"/settings/providers/{provider.pk}/delete/").content.decode()
        response = alice_client.post(f"/settings/providers/{provider.pk}/delete/", follow=True)

        assert "go back to none" in page
        assert "Deleted provider “Gateway”." in response.content.decode()
        assert not Provider.objects.filter(pk=provider.pk).exists()
        assert SiteSettings.load().judge_provider is None

    def test_a_provider_used_by_scenarios_says_which(self, alice_client: Client) -> None:
        provider = make_provider()
        server = make_demo_server()
        make_scenario(server, provider=provider, model="gpt-4o", name="Weather")
        make_scenario(server, provider=provider, model="gpt-4o", name="Flights")

        page = alice_client.get(f"/settings/providers/{provider.pk}/delete/").content.decode()
        response = alice_client.post(f"/settings/providers/{provider.pk}/delete/", follow=True)

        expected = "“Gateway” cannot be deleted: scenarios “Flights”, “Weather” use it."
        assert expected in page
        assert 'type="submit">Delete' not in page
        assert expected in response.content.decode()
        assert Provider.objects.filter(pk=provider.pk).exists()

    def test_the_offline_provider_cannot_be_deleted(self, alice_client: Client) -> None:
        provider = offline_provider()

        response = alice_client.post(f"/settings/providers/{provider.pk}/delete/", follow=True)

        assert "is the built-in offline model; it cannot be deleted." in response.content.decode()
        assert Provider.objects.filter(pk=provider.pk).exists()

    def test_the_environment_openai_provider_cannot_be_deleted(
        self, alice_client: Client, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env-123456")
        alice_client.get("/settings/")
        provider = Provider.objects.get(name="OpenAI")

        response = alice_client.post(f"/settings/providers/{provider.pk}/delete/", follow=True)

        assert "comes from OPENAI_API_KEY in the environment" in response.content.decode()
        assert Provider.objects.filter(pk=provider.pk).exists()

    def test_bob_cannot_delete(self, bob_client: Client) -> None:
        provider = make_provider()

        assert bob_client.post(f"/settings/providers/{provider.pk}/delete/").status_code == 403
        assert Provider.objects.filter(pk=provider.pk).exists()
