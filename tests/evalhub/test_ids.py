"""evalhub/ids.py: what counts as an id typed as text, and the pages that read one from a query or form (issue 23,
finding 13: a digit like "²" or 5,000 digits was a 500)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from evalhub.ids import MAX_ID, parse_id
from runs.models import Run
from scorers.models import Scorer
from tests.base import make_demo_server, make_scenario
from tests.runs.experiments.helpers import start, tagged_scenarios

# Text that str.isdigit() accepts but is no id a database row can have, and text that is not digits at all.
HOSTILE_IDS = ["²", "٣", "9" * 5000, str(MAX_ID + 1), "1" * 20, "-1", "1.0", " 1", ""]


class ParseIdTests:
    @pytest.mark.parametrize("text", HOSTILE_IDS)
    def test_it_refuses_what_no_row_can_have(self, text: str) -> None:
        assert parse_id(text) is None

    @pytest.mark.parametrize(("text", "value"), [("0", 0), ("42", 42), ("007", 7), (str(MAX_ID), MAX_ID)])
    def test_it_reads_ascii_digits_up_to_the_largest_id(self, text: str, value: int) -> None:
        assert parse_id(text) == value


@pytest.mark.django_db
class PagesReadingIdsTests:
    @pytest.mark.parametrize("text", HOSTILE_IDS)
    def test_the_runs_list_ignores_a_filter_that_is_no_id(self, alice_client: Client, text: str) -> None:
        response = alice_client.get("/runs/", {"scenario": text, "cell": text})

        assert response.status_code == 200

    @pytest.mark.parametrize("text", ["²", "9" * 5000, str(MAX_ID + 1)])
    def test_divergence_and_compare_offer_the_picker_for_a_baseline_that_is_no_id(
        self, alice_client: Client, text: str
    ) -> None:
        run = Run.objects.create(scenario=make_scenario(make_demo_server()), model="m", started_at=timezone.now())
        experiment = start(tagged_scenarios(1), trials=1)

        assert alice_client.get(f"/experiments/runs/{run.pk}/divergence/", {"baseline": text}).status_code == 200
        assert alice_client.get(f"/experiments/{experiment.pk}/compare/", {"baseline": text}).status_code == 200

    @pytest.mark.parametrize("text", ["²", "9" * 5000, str(MAX_ID + 1)])
    def test_attaching_a_scorer_to_a_scenario_that_is_no_id_says_choose_one(
        self, alice_client: Client, text: str
    ) -> None:
        scorer = Scorer.objects.create(name="S", kind="code", code="async () => 1")

        response = alice_client.post(f"/scorers/{scorer.pk}/attach/", {"scenario_id": text}, follow=True)

        assert response.status_code == 200
        assert "Choose a scenario" in response.content.decode()
