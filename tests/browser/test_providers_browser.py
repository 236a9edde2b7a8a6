from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from playwright.sync_api import Page, expect
from pytest_django.live_server_helper import LiveServer

from evalhub.providers.models import Provider
from tests.browser.conftest import log_in, screenshot
from tests.evalhub.model_client.scripted_server import API_KEY, Answer, ScriptedServer, completion, openai_error


@pytest.fixture
def scripted() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    yield server
    server.close()


@pytest.fixture(autouse=True)
def no_openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


@pytest.mark.browser
class ProvidersBrowserTests:
    def test_add_a_provider_and_test_it_without_reloading(
        self, page: Page, live_server: LiveServer, alice: User, scripted: ScriptedServer
    ) -> None:
        log_in(page, live_server)
        page.goto(f"{live_server.url}/settings/")
        expect(page.locator(".provider").first).to_contain_text("rule-based agent for smoke tests")
        screenshot(page, "settings-providers")

        page.get_by_role("link", name="Add provider").click()
        page.get_by_label("Name").fill("My gateway")
        page.get_by_label("Base URL").fill(scripted.base_url)
        page.get_by_label("API key").fill(API_KEY)
        page.get_by_label("Extra headers").fill("X-Title: EvalHub\nX-Api-Token: header-secret-55")
        page.get_by_label("Models").fill("gpt-4o\nmy-model")
        page.get_by_label("Price overrides").fill("my-model = 0.50 / 1.50\nnot-listed = x / 1")
        page.get_by_text("Examples").click()
        screenshot(page, "provider-form")
        page.get_by_role("button", name="Add provider").click()

        # The form comes back with the bad price line named, and without the key.
        expect(page.locator(".field-error")).to_contain_text("Line 2: “x” is not a price")
        expect(page.get_by_label("API key")).to_have_value("")
        expect(page.get_by_label("Extra headers")).to_have_value("X-Title: EvalHub\nX-Api-Token: ••••")
        screenshot(page, "provider-form-errors")
        page.get_by_label("API key").fill(API_KEY)
        page.get_by_label("Extra headers").fill("X-Title: EvalHub\nX-Api-Token: header-secret-55")
        page.get_by_label("Price overrides").fill("my-model = 0.50 / 1.50")
        page.get_by_role("button", name="Add provider").click()

        expect(page.locator(".message-success")).to_contain_text("Added provider “My gateway”")
        section = page.locator("article.provider", has_text="My gateway")
        expect(section).to_contain_text("•••• set")
        expect(section.locator('tr[data-model="my-model"]')).to_contain_text("$0.50 in / $1.50 out")
        expect(section.locator('tr[data-model="gpt-4o"]')).to_contain_text("unknown")
        page.evaluate("window.__notReloaded = true")

        scripted.script(Answer(body=completion(content="O", completion_tokens=1), delay=0.3))
        section.get_by_role("button", name="Test gpt-4o").click()
        expect(section.locator('tr[data-model="gpt-4o"] .test-result')).to_contain_text("answered in")
        expect(section.locator('tr[data-model="gpt-4o"] .test-result')).to_contain_text(" ms")

        scripted.script(openai_error(401, "Incorrect API key provided."))
        section.get_by_role("button", name="Test my-model").click()
        expect(section.locator('tr[data-model="my-model"] .test-result')).to_contain_text(
            "the provider rejected the API key (401)"
        )
        # Only the latest test is kept, on the row of the model it tested.
        expect(section.locator('tr[data-model="gpt-4o"] .test-result')).not_to_contain_text("answered")

        offline = page.locator("article.provider", has_text="EvalHub offline")
        offline.get_by_role("button", name="Test evalhub-offline").click()
        expect(offline.locator(".test-result")).to_contain_text("answered in")
        assert page.evaluate("window.__notReloaded") is True
        assert API_KEY not in page.content() and "header-secret-55" not in page.content()
        screenshot(page, "settings-providers-tested")

        # my-model's test failed above: the picker names the provider, and says so of my-model only.
        gateway = Provider.objects.get(name="My gateway")
        page.get_by_label("Default judge model").select_option(f"{gateway.pk}:gpt-4o")
        page.get_by_role("button", name="Save models").click()
        expect(page.locator(".message-success")).to_contain_text("Saved the models EvalHub uses.")
        picker = page.get_by_label("Default judge model")
        expect(picker.locator("option:checked")).to_have_text("gpt-4o · My gateway")
        expect(picker.locator(f'option[value="{gateway.pk}:my-model"]')).to_have_text(
            "my-model · My gateway · last test failed"
        )

        page.get_by_role("link", name="Edit My gateway").click()
        expect(page.get_by_label("API key", exact=True)).to_have_attribute(
            "placeholder", "•••• set — leave empty to keep it"
        )
        expect(page.get_by_label("Extra headers")).to_have_value("X-Title: EvalHub\nX-Api-Token: ••••")
        screenshot(page, "provider-edit")
        page.get_by_label("Timeout (seconds)").fill("20")
        page.get_by_role("button", name="Save").click()
        expect(page.locator(".message-success")).to_contain_text("Saved provider “My gateway”.")
        expect(page.locator("article.provider", has_text="My gateway")).to_contain_text("20 s per call")
        page.get_by_role("link", name="Delete My gateway").click()
        screenshot(page, "provider-delete")
        page.get_by_role("button", name="Delete").click()
        expect(page.locator(".message-success")).to_contain_text("Deleted provider “My gateway”.")

    def test_bob_sees_providers_read_only(self, page: Page, live_server: LiveServer, bob: User) -> None:
        log_in(page, live_server, "bob")
        page.goto(f"{live_server.url}/settings/")

        expect(page.get_by_text("Only staff can change model providers")).to_be_visible()
        expect(page.get_by_role("link", name="Add provider")).to_have_count(0)
        page.get_by_role("button", name="Test evalhub-offline").click()
        expect(page.locator(".test-result").first).to_contain_text("answered in")
        screenshot(page, "settings-providers-bob")
