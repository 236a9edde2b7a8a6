"""`$snapshot` expectations on real runs (demo server over stdio, execution level: no model): the first run records,
later runs compare, CI refuses to create, --update-snapshots re-records, and the run page's Update snapshot button."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from evalhub.scenarios.models import Scenario
from runs import pipeline
from runs.ci.runner import snapshot_mode
from runs.models import ExpectationSnapshot, Run
from runs.run_choices import RunChoices
from runs.services import run_start
from tests.base import make_demo_server, make_scenario

KEY = "tool_result get_weather $.structuredContent | {temperature_c, conditions}"
SNAPSHOT = {
    "kind": "tool_result",
    "tool": "get_weather",
    "path": "$.structuredContent",
    "transform": "{temperature_c, conditions}",
    "matches": {"$snapshot": True},
}


def weather_scenario(alice: User) -> Scenario:
    server = make_demo_server(side_effects_acknowledged_at=timezone.now())
    return make_scenario(
        server,
        name="Paris weather snapshot",
        level="execution",
        tool_call={"tool": "get_weather", "arguments": {"latitude": 48.85, "longitude": 2.35}},
        expectations=[SNAPSHOT],
        created_by=alice,
    )


def execute(scenario: Scenario, user: User, snapshots: str = "") -> Run:
    run = run_start(scenario=scenario, user=user, choices=RunChoices(snapshots=snapshots))
    pipeline.execute_run(run.pk, worker="test")
    return Run.objects.get(pk=run.pk)


def checked(run: Run) -> dict[str, Any]:
    details = run.score_results.get(is_current=True, scorer_kind="expectations").details
    assert details is not None
    return details


def stored(scenario: Scenario) -> dict[str, Any]:
    return dict(ExpectationSnapshot.objects.filter(scenario=scenario).values_list("key", "value"))


@pytest.mark.django_db(transaction=True)
class SnapshotRunTests:
    def test_the_first_run_records_and_later_runs_compare(self, alice: User) -> None:
        scenario = weather_scenario(alice)

        first = execute(scenario, alice)

        assert first.passed is True, first.score_reason
        [entry] = checked(first)["snapshots"]
        assert (entry["key"], entry["status"]) == (KEY, "created")
        value = stored(scenario)[KEY]
        assert set(value) == {"temperature_c", "conditions"}
        assert value["conditions"] == "partly cloudy" and isinstance(value["temperature_c"], float)
        assert ExpectationSnapshot.objects.get(scenario=scenario).run_id == first.pk

        second = execute(scenario, alice)
        assert second.passed is True
        assert checked(second)["snapshots"][0]["status"] == "matched"

    def test_a_changed_value_fails_the_run_and_names_the_snapshot(self, alice: User) -> None:
        scenario = weather_scenario(alice)
        # Keys in the order PostgreSQL's jsonb keeps them (shorter first), so the message reads the same on both tiers.
        ExpectationSnapshot.objects.create(
            scenario=scenario, key=KEY, value={"conditions": "snow", "temperature_c": -40}
        )

        run = execute(scenario, alice)

        assert (run.passed, run.verdict) == (False, "fail")
        [outcome] = checked(run)["outcomes"]
        [entry] = outcome["diff"]
        assert entry["category"] == "result_mismatch"
        assert entry["message"].startswith(
            f'structuredContent: differs from snapshot "{KEY}": '
            'expected {"conditions": "snow", "temperature_c": -40}, got'
        )
        assert stored(scenario)[KEY] == {"temperature_c": -40, "conditions": "snow"}  # a failed check stores nothing

    def test_under_ci_a_missing_snapshot_fails_and_is_not_created(self, alice: User) -> None:
        scenario = weather_scenario(alice)

        run = execute(scenario, alice, snapshots="ci")

        assert run.passed is False
        [outcome] = checked(run)["outcomes"]
        assert outcome["diff"][0]["message"] == (
            f'structuredContent: no snapshot "{KEY}" is stored, and with CI=true a run does not create one: run '
            "`evalhub run --update-snapshots` or press Update snapshot on the run's page"
        )
        assert stored(scenario) == {}

    def test_update_rerecords_and_passes(self, alice: User) -> None:
        scenario = weather_scenario(alice)
        ExpectationSnapshot.objects.create(scenario=scenario, key=KEY, value="old")

        run = execute(scenario, alice, snapshots="update")

        assert run.passed is True
        assert checked(run)["snapshots"][0]["status"] == "updated"
        assert stored(scenario)[KEY] != "old"

    def test_rescoring_stores_nothing(self, alice: User) -> None:
        from runs.scoring import score_run

        scenario = weather_scenario(alice)
        run = execute(scenario, alice)
        ExpectationSnapshot.objects.all().delete()

        score_run(Run.objects.get(pk=run.pk))

        assert stored(scenario) == {}


@pytest.mark.django_db(transaction=True)
class UpdateSnapshotButtonTests:
    def failed_run(self, alice: User) -> tuple[Scenario, Run]:
        scenario = weather_scenario(alice)
        ExpectationSnapshot.objects.create(scenario=scenario, key=KEY, value="old")
        return scenario, execute(scenario, alice)

    def test_the_owner_sees_the_button_and_stores_the_value(self, alice: User, alice_client: Client) -> None:
        scenario, run = self.failed_run(alice)
        page = alice_client.get(f"/runs/{run.pk}/").content.decode()
        assert "Update snapshot</button>" in page
        assert f'action="/runs/{run.pk}/update-snapshots/"' in page
        assert "mismatched" in page

        response = alice_client.post(f"/runs/{run.pk}/update-snapshots/", follow=True)

        assert "later runs compare with them" in response.content.decode()
        snapshot = ExpectationSnapshot.objects.get(scenario=scenario, key=KEY)
        assert snapshot.value == checked(run)["snapshots"][0]["value"]
        assert (snapshot.run_id, snapshot.updated_by) == (run.pk, alice)
        assert Run.objects.get(pk=run.pk).passed is False  # the run keeps its verdict
        assert execute(scenario, alice).passed is True

    def test_someone_who_may_not_change_the_scenario_is_refused(self, alice: User, bob_client: Client) -> None:
        _, run = self.failed_run(alice)
        assert "Update snapshot</button>" not in bob_client.get(f"/runs/{run.pk}/").content.decode()

        response = bob_client.post(f"/runs/{run.pk}/update-snapshots/")

        assert response.status_code == 403
        assert ExpectationSnapshot.objects.get(key=KEY).value == "old"

    def test_it_needs_post_and_login(self, alice: User, alice_client: Client) -> None:
        _, run = self.failed_run(alice)
        assert alice_client.get(f"/runs/{run.pk}/update-snapshots/").status_code == 405
        anonymous = Client().post(f"/runs/{run.pk}/update-snapshots/")
        assert anonymous.status_code == 302 and "/login" in anonymous["Location"]

    def test_csrf_is_required(self, alice: User) -> None:
        _, run = self.failed_run(alice)
        client = Client(enforce_csrf_checks=True)
        client.force_login(alice)
        assert client.post(f"/runs/{run.pk}/update-snapshots/").status_code == 403
        assert ExpectationSnapshot.objects.get(key=KEY).value == "old"


class SnapshotModeTests:
    def test_update_wins_and_ci_refuses_creation(self) -> None:
        assert snapshot_mode(update=True, environ={"CI": "true"}) == "update"
        assert snapshot_mode(update=False, environ={"CI": "true"}) == "ci"
        assert snapshot_mode(update=False, environ={"CI": "TRUE "}) == "ci"
        assert snapshot_mode(update=False, environ={"CI": "1"}) == ""
        assert snapshot_mode(update=False, environ={}) == ""


@pytest.mark.django_db
class CommandTests:
    @pytest.mark.parametrize(
        ("argv", "ci", "mode"),
        [([], "", None), ([], "true", "ci"), (["--update-snapshots"], "true", "update")],
    )
    def test_the_mode_reaches_the_run(
        self, alice: User, monkeypatch: pytest.MonkeyPatch, argv: list[str], ci: str, mode: str | None
    ) -> None:
        weather_scenario(alice)
        monkeypatch.setenv("CI", ci)

        call_command("evalhub", "run", "--scenario", "Paris weather snapshot", *argv)

        assert Run.objects.get().settings.get("snapshots") == mode
