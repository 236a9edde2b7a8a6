"""Judge model pickers: never the offline model (it cannot judge), each option names its provider and a failed last
Test, and a judge with no model to run on is refused with the way to give it one, instead of skipped on every run."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from evalhub.providers.models import Provider, SiteSettings, offline_provider
from scorers.models import Scorer
from tests.scorers.test_scorer_views import code_form

JUDGE = {"kind": "judge", "code": "", "system_prompt": "Was the answer helpful?", "labels": "GOOD|1\nBAD|0"}


def options(html: str, select: str) -> list[str]:
    found = re.search(rf'<select name="{select}"[^>]*>(.*?)</select>', html, re.S)
    assert found is not None, f"no {select} select"
    return re.findall(r"<option[^>]*>([^<]*)</option>", found[1])


@pytest.fixture
def gateway(db: None) -> Provider:
    provider = Provider.objects.create(name="Gateway", base_url="https://llm.example.com/v1", model_names=["judge-1"])
    return provider


@pytest.mark.django_db
class JudgePickerTests:
    def test_the_judge_picker_offers_no_offline_model_and_names_each_provider(
        self, alice_client: Client, gateway: Provider
    ) -> None:
        offline_provider()
        broken = Provider.objects.create(
            name="Broken", base_url="https://down.example.com/v1", model_names=["b-1", "b-2"]
        )
        broken.last_test = {"ok": False, "model": "b-1", "kind": "auth", "message": "401"}
        broken.save()

        html = alice_client.get("/scorers/new/").content.decode()

        judges = options(html, "judge_model_choice")
        assert "evalhub-offline" not in " ".join(judges)
        assert "judge-1 · Gateway" in judges and "b-1 · Broken · last test failed" in judges
        assert "b-2 · Broken" in judges  # never tested: nothing said about it
        assert '<optgroup label="Broken — last test (b-1) failed (auth)">' in html

    def test_a_judge_with_no_model_and_no_default_is_refused_with_the_way_to_give_it_one(
        self, alice_client: Client
    ) -> None:
        html = alice_client.post("/scorers/new/", code_form(name="Helpful", **JUDGE)).content.decode()

        assert "Choose a judge model: no default judge model is set in Settings" in html
        assert 'id="judge-model-notice"' in html and 'href="/settings/#models"' in html
        assert not Scorer.objects.exists()

    def test_with_a_default_judge_model_a_judge_may_leave_its_own_empty(
        self, alice_client: Client, gateway: Provider
    ) -> None:
        SiteSettings.objects.create(pk=1, judge_provider=gateway, judge_model="judge-1")

        page = alice_client.get("/scorers/new/").content.decode()
        response = alice_client.post("/scorers/new/", code_form(name="Helpful", **JUDGE))

        assert options(page, "judge_model_choice")[0] == "Default judge model: judge-1 · Gateway"
        assert 'id="judge-model-notice"' not in page
        assert response.status_code == 302 and Scorer.objects.get().judge_model == ""

    def test_the_default_judge_model_in_settings_cannot_be_the_offline_model(
        self, alice_client: Client, gateway: Provider
    ) -> None:
        html = alice_client.get("/settings/").content.decode()

        assert "evalhub-offline" not in " ".join(options(html, "judge_choice"))
        assert "evalhub-offline · EvalHub offline" in options(html, "generation_choice")
