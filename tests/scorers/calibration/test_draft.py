"""*Test scorer* against people's reviews: a draft scored on reviewed runs, with its agreement and κ, unsaved."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.scenarios.models import Scenario
from scorers.models import Scorer
from tests.base import make_demo_server, make_scenario
from tests.scorers.calibration.helpers import SUNNY, code_scorer, reviewed, scored

# People passed sunny answers, failed the rest; one reviewed run says "sunny" about the wrong city.
CASES = [
    ("It is sunny.", "pass"),
    ("It is sunny today.", "pass"),
    ("It rains.", "fail"),
    ("Snow.", "fail"),
    ("It is sunny in Rome.", "fail"),
]


def draft(**overrides: Any) -> dict[str, Any]:
    return {
        "name": "Draft",
        "description": "",
        "kind": "code",
        "code": SUNNY,
        "system_prompt": "",
        "labels": "",
        "judge_model_choice": "",
        **overrides,
    }


@pytest.fixture
def scenario(db: None) -> Scenario:
    return make_scenario(make_demo_server())


@pytest.fixture
def reviewed_runs(alice: User, scenario: Scenario) -> dict[str, int]:
    # Scored by another scorer: a draft is judged on people's verdicts, not on what scored the runs.
    scenario.scorers.set([code_scorer(alice, code="async () => 1", name="Anything")])
    return {text: reviewed(scored(scenario, text=text), alice, verdict).pk for text, verdict in CASES}


@pytest.mark.django_db
class DraftTestTests:
    def test_it_shows_agreement_kappa_and_the_disagreeing_runs_without_saving(
        self, alice_client: Client, reviewed_runs: dict[str, int]
    ) -> None:
        response = alice_client.post("/scorers/test-reviewed/", draft(), HTTP_HX_REQUEST="true")

        html = response.content.decode()
        assert html.lstrip().startswith('<div id="review-test-result"')
        # tp 2, fp 1, tn 2: p_o 0.8, p_e 0.48, κ 0.62.
        assert "Agreement 80%" in html and "κ 0.62" in html and "over 5 of 5 reviewed runs" in html
        wrong = reviewed_runs["It is sunny in Rome."]
        assert f'href="/runs/{wrong}/">#{wrong}</a>' in html.split('id="draft-false-passes"')[1]
        assert 'id="draft-false-fails"' not in html
        assert Scorer.objects.filter(name="Draft").count() == 0

    def test_a_draft_that_always_passes_shows_kappa_zero(
        self, alice_client: Client, reviewed_runs: dict[str, int]
    ) -> None:
        html = alice_client.post(
            "/scorers/test-reviewed/", draft(code="async () => 1"), HTTP_HX_REQUEST="true"
        ).content.decode()
        assert "Agreement 40%" in html and "κ 0.00" in html and "failed what people failed 0%" in html

    def test_a_saved_scorer_tests_its_edited_draft_on_its_scenarios_runs(
        self, alice: User, alice_client: Client, reviewed_runs: dict[str, int]
    ) -> None:
        scorer = Scorer.objects.get(name="Anything")
        html = alice_client.post(
            f"/scorers/{scorer.pk}/test-reviewed/", draft(name="Anything"), HTTP_HX_REQUEST="true"
        ).content.decode()
        assert "κ 0.62" in html
        scorer.refresh_from_db()
        assert scorer.code == "async () => 1" and scorer.version == 1

    def test_errors_in_the_draft_come_first(self, alice_client: Client, reviewed_runs: dict[str, int]) -> None:
        html = alice_client.post(
            "/scorers/test-reviewed/", draft(code="async ( => 1"), HTTP_HX_REQUEST="true"
        ).content.decode()
        assert "Fix the errors in the form first" in html

    def test_without_reviewed_runs_it_says_how_to_get_some(self, alice_client: Client) -> None:
        html = alice_client.post("/scorers/test-reviewed/", draft(), HTTP_HX_REQUEST="true").content.decode()
        assert "No reviewed run to test on yet" in html

    def test_it_requires_login_and_post(self, client: Client, alice_client: Client) -> None:
        assert client.post("/scorers/test-reviewed/", draft()).status_code == 302
        assert alice_client.get("/scorers/test-reviewed/").status_code == 405
