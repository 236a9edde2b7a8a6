"""Scorers attached gating (at their own threshold) or advisory, and tool errors expected: through the API, suites
and duplicates, read back the same way everywhere."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from django.contrib.auth.models import User
from django.test import Client

from evalhub.scenarios.services import scenario_duplicate
from evalhub.suites.services import suite_apply, suite_export
from evalhub.suites.validation import InvalidSuite
from scorers.models import ScenarioScorer, Scorer
from scorers.services import scorer_save
from tests.base import make_demo_server, make_scenario


def scorer(user: User, name: str) -> Scorer:
    return scorer_save(scorer=Scorer(name=name, kind=Scorer.Kind.CODE, code="async () => 1"), user=user)


def attachments(scenario_id: int) -> list[tuple[str, bool, float | None]]:
    rows = ScenarioScorer.objects.filter(scenario_id=scenario_id).order_by("scorer__name")
    return [(a.scorer.name, a.advisory, a.threshold) for a in rows]


@pytest.mark.django_db
class ScenarioApiAttachmentTests:
    def test_scorers_carry_advisory_and_threshold_and_scorer_ids_still_work(
        self, writer_api: Client, bob: User
    ) -> None:
        coords, tone = scorer(bob, "Coords"), scorer(bob, "Tone")
        body: dict[str, Any] = {
            "name": "Weather",
            "prompt": "Weather at 48.85, 2.35?",
            "server_id": make_demo_server().pk,
            "model": "evalhub-offline",
            "scorers": [{"id": coords.pk, "threshold": 0.9}, {"id": tone.pk, "advisory": True}],
            "tool_errors_expected": True,
        }
        created = writer_api.post("/api/v1/scenarios", body, content_type="application/json")
        assert created.status_code == 201, created.content
        out = created.json()
        assert out["scorers"] == [
            {"id": coords.pk, "name": "Coords", "advisory": False, "threshold": 0.9},
            {"id": tone.pk, "name": "Tone", "advisory": True, "threshold": None},
        ]
        assert out["tool_errors_expected"] is True

        # A PATCH of something else keeps the attachments as they are.
        path = f"/api/v1/scenarios/{out['id']}"
        writer_api.patch(path, {"description": "x"}, content_type="application/json")
        assert attachments(out["id"]) == [("Coords", False, 0.9), ("Tone", True, None)]
        # scorer_ids alone: those scorers, gating.
        writer_api.patch(path, {"scorer_ids": [tone.pk]}, content_type="application/json")
        assert attachments(out["id"]) == [("Tone", False, None)]

    def test_a_threshold_out_of_range_is_refused_with_its_place(self, writer_api: Client, bob: User) -> None:
        body = {
            "name": "Weather",
            "prompt": "Weather?",
            "server_id": make_demo_server().pk,
            "model": "evalhub-offline",
            "scorers": [{"id": scorer(bob, "Coords").pk, "threshold": 1.5}],
        }
        response = writer_api.post("/api/v1/scenarios", body, content_type="application/json")
        assert response.status_code == 400
        assert response.json()["error"]["details"]["errors"][0]["loc"][-3:] == ["scorers", "0", "threshold"]


@pytest.mark.django_db
class SuiteAndDuplicateAttachmentTests:
    def test_a_suite_round_trips_advisory_scorers_thresholds_and_expected_tool_errors(self, alice: User) -> None:
        scenario = make_scenario(make_demo_server(), tool_errors_expected=True)
        scenario.scorers.add(scorer(alice, "Coords"), through_defaults={"threshold": 0.9})
        scenario.scorers.add(scorer(alice, "Tone"), through_defaults={"advisory": True})

        exported = yaml.safe_load(suite_export(schema_url="x"))
        entry = exported["scenarios"][0]
        assert entry["scorers"] == ["Coords"] and entry["advisory_scorers"] == ["Tone"]
        assert entry["scorer_thresholds"] == {"Coords": 0.9} and entry["tool_errors_expected"] is True

        entry["advisory_scorers"], entry["scorers"], entry["scorer_thresholds"] = ["Coords"], ["Tone"], {"Tone": 0.5}
        suite_apply(text=yaml.safe_dump(exported), filename="s.yaml", user=alice, dry_run=False)
        assert attachments(scenario.pk) == [("Coords", True, None), ("Tone", False, 0.5)]

    def test_a_threshold_for_a_scorer_not_attached_is_refused(self, alice: User) -> None:
        scenario = make_scenario(make_demo_server())
        scenario.scorers.add(scorer(alice, "Coords"))
        exported = yaml.safe_load(suite_export(schema_url="x"))
        exported["scenarios"][0]["scorer_thresholds"] = {"Nope": 0.5}

        with pytest.raises(InvalidSuite) as refused:
            suite_apply(text=yaml.safe_dump(exported), filename="s.yaml", user=alice, dry_run=True)

        assert "/scenarios/0/scorer_thresholds/Nope: 'Nope' is not one of this scenario's scorers" in str(refused.value)

    def test_a_duplicate_keeps_how_each_scorer_counts(self, alice: User) -> None:
        scenario = make_scenario(make_demo_server())
        scenario.scorers.add(scorer(alice, "Coords"), through_defaults={"threshold": 0.9})
        scenario.scorers.add(scorer(alice, "Tone"), through_defaults={"advisory": True})

        copy = scenario_duplicate(scenario=scenario, user=alice)

        assert attachments(copy.pk) == [("Coords", False, 0.9), ("Tone", True, None)]
