"""A scorer's page: the scenarios using it (attach, detach, within who may change each scenario) and its versions
(view, compared with the current one, restore as a new version)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.scenarios.models import Scenario
from scorers.models import Scorer
from tests.base import make_demo_server, make_scenario
from tests.scorers.test_scorer_views import code_form


@pytest.fixture
def scorer(alice_client: Client) -> Scorer:
    alice_client.post("/scorers/new/", code_form(code="async () => {\n  return 0;\n}"))
    return Scorer.objects.get()


@pytest.fixture
def scenario(alice: User) -> Scenario:
    return make_scenario(make_demo_server(), created_by=alice)


@pytest.mark.django_db
class UsedByTests:
    def test_attach_and_detach_from_the_scorer_page(
        self, alice_client: Client, scorer: Scorer, scenario: Scenario
    ) -> None:
        page = alice_client.get(f"/scorers/{scorer.pk}/").content.decode()
        assert "No scenario uses it yet" in page and f'<option value="{scenario.pk}">Weather in Paris</option>' in page

        response = alice_client.post(f"/scorers/{scorer.pk}/attach/", {"scenario_id": scenario.pk}, follow=True)

        assert list(scenario.scorers.all()) == [scorer]
        page = response.content.decode()
        assert "“Weather in Paris” now scores its runs with “Weather called” too." in page
        assert f'action="/scorers/{scorer.pk}/detach/{scenario.pk}/"' in page

        response = alice_client.post(f"/scorers/{scorer.pk}/detach/{scenario.pk}/", follow=True)

        assert not scenario.scorers.exists()
        assert "It has no scorer left, so the default scorer scores its runs." in response.content.decode()

    def test_only_who_may_change_a_scenario_attaches_to_or_detaches_from_it(
        self, bob_client: Client, scorer: Scorer, scenario: Scenario
    ) -> None:
        scenario.scorers.add(scorer)

        page = bob_client.get(f"/scorers/{scorer.pk}/").content.decode()
        refused = bob_client.post(f"/scorers/{scorer.pk}/detach/{scenario.pk}/")

        assert "/detach/" not in page and 'id="attach-scenario"' not in page  # nothing of Bob's to attach to
        assert refused.status_code == 403 and "Duplicate it" in refused.content.decode()
        assert list(scenario.scorers.all()) == [scorer]

    def test_attaching_to_a_scenario_that_is_gone_says_so(self, alice_client: Client, scorer: Scorer) -> None:
        response = alice_client.post(f"/scorers/{scorer.pk}/attach/", {"scenario_id": "999"}, follow=True)

        assert "Choose a scenario to attach the scorer to (it may have been deleted)." in response.content.decode()


@pytest.mark.django_db
class VersionTests:
    def test_an_old_version_is_shown_against_the_current_one_and_restored_as_a_new_version(
        self, alice_client: Client, scorer: Scorer
    ) -> None:
        alice_client.post(f"/scorers/{scorer.pk}/", code_form(code="async () => {\n  return 1;\n}"))

        page = alice_client.get(f"/scorers/{scorer.pk}/versions/1/").content.decode()

        assert 'class="diff-removed"' in page and "<code>  return 0;</code>" in page
        assert 'class="diff-added"' in page and "<code>  return 1;</code>" in page
        assert "v1 compared with the current v2" in page

        response = alice_client.post(f"/scorers/{scorer.pk}/versions/1/restore/", follow=True)

        scorer.refresh_from_db()
        assert (scorer.version, scorer.code) == (3, "async () => {\n  return 0;\n}")
        assert "Restored version 1 of “Weather called” as version 3; v2 is kept." in response.content.decode()
        assert list(scorer.versions.values_list("version", flat=True)) == [3, 2, 1]

    def test_the_current_version_offers_no_restore_and_others_may_not_restore(
        self, alice_client: Client, bob_client: Client, scorer: Scorer
    ) -> None:
        alice_client.post(f"/scorers/{scorer.pk}/", code_form(code="async () => 1"))

        current = alice_client.get(f"/scorers/{scorer.pk}/versions/2/").content.decode()
        as_bob = bob_client.get(f"/scorers/{scorer.pk}/versions/1/").content.decode()
        refused = bob_client.post(f"/scorers/{scorer.pk}/versions/1/restore/")

        assert "This is the current version" in current and "/restore/" not in current
        assert "/restore/" not in as_bob
        assert refused.status_code == 403
        scorer.refresh_from_db()
        assert scorer.version == 2

    def test_a_version_that_does_not_exist_is_a_404(self, alice_client: Client, scorer: Scorer) -> None:
        assert alice_client.get(f"/scorers/{scorer.pk}/versions/7/").status_code == 404
