"""A provider's API key and secret headers never come back out: not in a page, a form, an error or the admin."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib import admin
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from evalhub.providers.models import Provider
from tests.evalhub.model_client.scripted_server import ScriptedServer, openai_error

KEY = "sk-proj-NEVER-SHOWN-0123456789abcdef"
HEADER_SECRET = "x-token-NEVER-SHOWN-42"


@pytest.fixture
def scripted() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    yield server
    server.close()


@pytest.fixture
def provider(db: None, scripted: ScriptedServer) -> Provider:
    provider = Provider(name="Scripted", base_url=scripted.base_url, model_names=["gpt-4o"], timeout=5)
    provider.set_secrets(api_key=KEY, headers={"X-Auth-Token": HEADER_SECRET})
    provider.save()
    return provider


def assert_no_secret(html: str, where: str) -> None:
    assert KEY not in html, f"the API key appears in {where}"
    assert HEADER_SECRET not in html, f"a secret header appears in {where}"


@pytest.mark.django_db
class ProviderSecretsTests:
    def test_no_page_shows_them(
        self, alice_client: Client, bob_client: Client, provider: Provider, scripted: ScriptedServer
    ) -> None:
        # The provider quotes the key back in its error, as OpenAI's "Incorrect API key provided: sk-…" does.
        scripted.script(openai_error(401, f"Incorrect API key provided: {KEY} with {HEADER_SECRET}"))
        test = alice_client.post(
            f"/settings/providers/{provider.pk}/test/", {"model": "gpt-4o"}, HTTP_HX_REQUEST="true"
        )
        assert "the provider rejected the API key (401)" in test.content.decode()
        assert_no_secret(test.content.decode(), "the Test result")

        failed_edit = {
            "name": "",
            "base_url": "nope",
            "api_key": KEY,
            "timeout": "5",
            "models_text": "gpt-4o",
            "headers_text": f"X-Auth-Token: {HEADER_SECRET}",
        }
        pages = {
            "the Settings page": alice_client.get("/settings/"),
            "the Settings page as bob": bob_client.get("/settings/"),
            "the edit form": alice_client.get(f"/settings/providers/{provider.pk}/edit/"),
            "the delete page": alice_client.get(f"/settings/providers/{provider.pk}/delete/"),
            "the scenario form": alice_client.get("/scenarios/new/"),
            "a failed edit": alice_client.post(f"/settings/providers/{provider.pk}/edit/", failed_edit),
        }
        for where, response in pages.items():
            assert response.status_code == 200, where
            assert_no_secret(response.content.decode(), where)
        assert "the provider rejected the API key (401)" in pages["the Settings page"].content.decode()

    def test_the_stored_outcome_of_a_test_has_no_secret(
        self, alice_client: Client, provider: Provider, scripted: ScriptedServer
    ) -> None:
        scripted.script(openai_error(400, f"bad request, your key {KEY} and header {HEADER_SECRET}"))

        alice_client.post(f"/settings/providers/{provider.pk}/test/", {"model": "gpt-4o"})

        provider.refresh_from_db()
        assert_no_secret(str(provider.last_test), "last_test")
        assert_no_secret(provider.sealed_secrets, "the database column")

    def test_the_admin_does_not_show_them(self, client: Client, provider: Provider) -> None:
        client.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))

        for model, model_admin in admin.site._registry.items():
            opts = model._meta
            html = client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")).content.decode()
            assert_no_secret(html, f"the {opts.model_name} admin list")
            if model is Provider:
                # If providers ever get an admin page, the sealed value stays out of its form.
                assert "sealed_secrets" in (model_admin.exclude or []), "exclude sealed_secrets from the admin"
                change = client.get(reverse("admin:evalhub_provider_change", args=[provider.pk])).content.decode()
                assert_no_secret(change, "the provider's admin page")
                assert provider.sealed_secrets not in change
