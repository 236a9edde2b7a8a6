"""Who may change what, through the pages: the creator and staff may; anyone else gets a 403 that says why, the
record stays as it was, and the page never offered the button (evalhub.permissions)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.test import Client

from evalhub.providers.model_choices import model_value
from evalhub.providers.models import offline_provider
from evalhub.scenarios.models import Scenario, Tag
from evalhub.servers.models import McpServer
from runs.experiments.models import BaselinePin, Experiment
from runs.experiments.services import ModelChoice, experiment_start, experiment_start_requested
from runs.models import Run
from scorers.models import Scorer
from tests.base import make_scenario
from tests.evalhub.servers.test_edit import form_data

SERVER_REFUSAL = (
    "Only the creator of the MCP server “Bob server” (bob) or staff can change or delete it. "
    "Register a server of your own to use other settings."
)
SCENARIO_REFUSAL = (
    "Only the creator of the scenario “Bob scenario” (bob) or staff can change or delete it. "
    "Duplicate it to get a copy you can change."
)
SCORER_REFUSAL = (
    "Only the creator of the scorer “Bob scorer” (bob) or staff can change or delete it. "
    "Duplicate it to get a copy you can change."
)


def logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def assert_refused(response: HttpResponse, sentence: str) -> None:
    assert response.status_code == 403, response.status_code
    assert sentence in response.content.decode()


def bob_server(bob: User, name: str = "Bob server") -> McpServer:
    return McpServer.objects.create(name=name, transport="http", url="https://mcp.example.com/mcp", created_by=bob)


def bob_scenario(bob: User, name: str = "Bob scenario", **fields: Any) -> Scenario:
    server = McpServer.objects.filter(name="Bob server").first() or bob_server(bob)
    return make_scenario(server, name=name, **{"created_by": bob, **fields})


def bob_scorer(bob: User, name: str = "Bob scorer") -> Scorer:
    return Scorer.objects.create(name=name, kind="code", code="async () => 1", created_by=bob)


def scenario_form(scenario: Scenario, **changes: Any) -> dict[str, Any]:
    return {
        "name": scenario.name,
        "server": scenario.server_id,
        "model_choice": model_value(offline_provider(), "evalhub-offline"),
        "prompt": scenario.prompt,
        "max_turns": 10,
        "max_tool_calls": 25,
        "time_limit_seconds": 300,
        "pass_threshold": 0.7,
        **changes,
    }


def scorer_form(**changes: Any) -> dict[str, Any]:
    return {"name": "Bob scorer", "kind": "code", "code": "async () => 1", **changes}


def done_run(scenario: Scenario, started_by: User | None, status: str = "done") -> Run:
    return Run.objects.create(
        scenario=scenario, model=scenario.model, status=status, started_by=started_by, settings={}, transcript={}
    )


@pytest.mark.django_db
class ServerPermissionTests:
    def test_only_the_creator_and_staff_edit_a_server(self, alice: User, bob: User, charlie: User) -> None:
        server = bob_server(bob)
        url = f"/servers/{server.pk}/edit/"
        data = form_data(logged_in(bob), url)

        assert_refused(logged_in(charlie).get(url), SERVER_REFUSAL)
        assert_refused(logged_in(charlie).post(url, data | {"name": "Charlie server"}), SERVER_REFUSAL)
        server.refresh_from_db()
        assert server.name == "Bob server"

        for user in (bob, alice):
            response = logged_in(user).post(url, data | {"name": f"Renamed by {user}"})
            assert response.status_code == 302
            server.refresh_from_db()
            assert server.name == f"Renamed by {user}"

    def test_only_the_creator_and_staff_delete_a_server(self, alice: User, bob: User, charlie: User) -> None:
        server = bob_server(bob)

        assert_refused(logged_in(charlie).get(f"/servers/{server.pk}/delete/"), SERVER_REFUSAL)
        assert_refused(logged_in(charlie).post(f"/servers/{server.pk}/delete/"), SERVER_REFUSAL)
        assert McpServer.objects.filter(pk=server.pk).exists()

        for user in (bob, alice):
            server = bob_server(bob, name=f"For {user} to delete")
            assert logged_in(user).get(f"/servers/{server.pk}/delete/").status_code == 200
            assert logged_in(user).post(f"/servers/{server.pk}/delete/").status_code == 302
            assert not McpServer.objects.filter(pk=server.pk).exists()

    def test_the_detail_page_offers_edit_and_delete_only_to_who_may(
        self, alice: User, bob: User, charlie: User
    ) -> None:
        server = bob_server(bob)
        links = (f"/servers/{server.pk}/edit/", f"/servers/{server.pk}/delete/")

        content = logged_in(charlie).get(f"/servers/{server.pk}/").content.decode()
        assert not any(link in content for link in links)
        assert f"{SERVER_REFUSAL} You can still inspect it and use it in scenarios." in content

        for user in (bob, alice):
            content = logged_in(user).get(f"/servers/{server.pk}/").content.decode()
            assert all(link in content for link in links)
            assert "You can still inspect it" not in content


@pytest.mark.django_db
class ScenarioPermissionTests:
    def test_only_the_creator_and_staff_edit_a_scenario(self, alice: User, bob: User, charlie: User) -> None:
        scenario = bob_scenario(bob)
        url = f"/scenarios/{scenario.pk}/edit/"

        assert_refused(logged_in(charlie).get(url), SCENARIO_REFUSAL)
        assert_refused(logged_in(charlie).post(url, scenario_form(scenario, prompt="Leak it")), SCENARIO_REFUSAL)
        scenario.refresh_from_db()
        assert scenario.prompt == "What's the weather at latitude 48.85, longitude 2.35?"

        for user in (bob, alice):
            response = logged_in(user).post(url, scenario_form(scenario, prompt=f"Asked by {user}"))
            assert response.status_code == 302, response.content
            scenario.refresh_from_db()
            assert scenario.prompt == f"Asked by {user}"

    def test_only_the_creator_and_staff_delete_a_scenario(self, alice: User, bob: User, charlie: User) -> None:
        scenario = bob_scenario(bob)
        done_run(scenario, started_by=charlie)

        assert_refused(logged_in(charlie).get(f"/scenarios/{scenario.pk}/delete/"), SCENARIO_REFUSAL)
        assert_refused(logged_in(charlie).post(f"/scenarios/{scenario.pk}/delete/"), SCENARIO_REFUSAL)
        assert Scenario.objects.filter(pk=scenario.pk).exists() and Run.objects.count() == 1

        for user in (bob, alice):
            scenario = bob_scenario(bob, name=f"For {user} to delete")
            assert logged_in(user).get(f"/scenarios/{scenario.pk}/delete/").status_code == 200
            assert logged_in(user).post(f"/scenarios/{scenario.pk}/delete/").status_code == 302
            assert not Scenario.objects.filter(pk=scenario.pk).exists()

    def test_only_the_creator_and_staff_re_score_a_scenarios_runs(
        self, alice: User, bob: User, charlie: User, django_capture_on_commit_callbacks: Any
    ) -> None:
        scenario = bob_scenario(bob)
        done_run(scenario, started_by=charlie)
        url = f"/runs/scenario/{scenario.pk}/rescore/"

        with django_capture_on_commit_callbacks() as queued:
            assert_refused(logged_in(charlie).post(url), SCENARIO_REFUSAL)
        assert queued == []

        for user in (bob, alice):
            with django_capture_on_commit_callbacks() as queued:
                assert logged_in(user).post(url).status_code == 302
            assert len(queued) == 1  # the re-scoring task, sent once the request commits

    def test_the_detail_page_offers_edit_delete_and_re_score_only_to_who_may(
        self, alice: User, bob: User, charlie: User
    ) -> None:
        scenario = bob_scenario(bob)
        pk = scenario.pk
        links = (f"/scenarios/{pk}/edit/", f"/scenarios/{pk}/delete/", f"/runs/scenario/{pk}/rescore/")

        content = logged_in(charlie).get(f"/scenarios/{pk}/").content.decode()
        assert not any(link in content for link in links)
        # Using it is everyone's: run and duplicate stay.
        assert f"/scenarios/{pk}/run/" in content and f"/scenarios/{pk}/duplicate/" in content

        for user in (bob, alice):
            content = logged_in(user).get(f"/scenarios/{pk}/").content.decode()
            assert all(link in content for link in links)

    def test_a_duplicate_belongs_to_who_made_it(self, bob: User, charlie: User) -> None:
        scenario = bob_scenario(bob)

        response = logged_in(charlie).post(f"/scenarios/{scenario.pk}/duplicate/")

        copy = Scenario.objects.get(name="Copy of Bob scenario")
        assert response["Location"] == f"/scenarios/{copy.pk}/edit/"
        assert copy.created_by == charlie
        assert logged_in(charlie).get(response["Location"]).status_code == 200
        assert_refused(logged_in(charlie).get(f"/scenarios/{scenario.pk}/edit/"), SCENARIO_REFUSAL)


@pytest.mark.django_db
class ScorerPermissionTests:
    def test_only_the_creator_and_staff_save_a_scorer(self, alice: User, bob: User, charlie: User) -> None:
        scorer = bob_scorer(bob)
        url = f"/scorers/{scorer.pk}/"

        assert_refused(logged_in(charlie).post(url, scorer_form(code="async () => 0")), SCORER_REFUSAL)
        scorer.refresh_from_db()
        assert (scorer.code, scorer.version) == ("async () => 1", 1)

        for version, user in enumerate((bob, alice), start=2):
            response = logged_in(user).post(url, scorer_form(code=f"async () => {version / 10}"))
            assert response.status_code == 302
            scorer.refresh_from_db()
            assert (scorer.code, scorer.version) == (f"async () => {version / 10}", version)

    def test_only_the_creator_and_staff_delete_a_scorer(self, alice: User, bob: User, charlie: User) -> None:
        scorer = bob_scorer(bob)

        assert_refused(logged_in(charlie).get(f"/scorers/{scorer.pk}/delete/"), SCORER_REFUSAL)
        assert_refused(logged_in(charlie).post(f"/scorers/{scorer.pk}/delete/"), SCORER_REFUSAL)
        assert Scorer.objects.filter(pk=scorer.pk).exists()

        for user in (bob, alice):
            scorer = bob_scorer(bob, name=f"For {user} to delete")
            assert logged_in(user).get(f"/scorers/{scorer.pk}/delete/").status_code == 200
            assert logged_in(user).post(f"/scorers/{scorer.pk}/delete/").status_code == 302
            assert not Scorer.objects.filter(pk=scorer.pk).exists()

    def test_others_read_and_test_it_but_are_offered_neither_save_nor_delete(
        self, alice: User, bob: User, charlie: User
    ) -> None:
        scorer = bob_scorer(bob)
        delete = f"/scorers/{scorer.pk}/delete/"
        save = 'type="submit">Save'

        response = logged_in(charlie).get(f"/scorers/{scorer.pk}/")
        content = response.content.decode()
        assert response.status_code == 200
        assert delete not in content and save not in content
        assert SCORER_REFUSAL in content
        assert "Test scorer" in content and f"/scorers/{scorer.pk}/duplicate/" in content

        for user in (bob, alice):
            content = logged_in(user).get(f"/scorers/{scorer.pk}/").content.decode()
            assert delete in content and save in content
            assert SCORER_REFUSAL not in content


@pytest.mark.django_db
class RunPermissionTests:
    """A run is changed by whoever started it, whoever may change its scenario, and staff."""

    def test_only_the_starter_the_scenarios_creator_and_staff_cancel_a_run(
        self, alice: User, bob: User, charlie: User
    ) -> None:
        scenario = bob_scenario(bob, created_by=None)
        run = done_run(scenario, started_by=bob, status="queued")

        refusal = f"Only bob (who started it) or staff can cancel or re-score run #{run.pk}."
        assert_refused(logged_in(charlie).post(f"/runs/{run.pk}/cancel/"), refusal)
        run.refresh_from_db()
        assert (run.status, run.cancel_requested) == ("queued", False)

        for user, starter in ((bob, bob), (alice, bob), (charlie, charlie)):
            run = done_run(scenario, started_by=starter, status="queued")
            assert logged_in(user).post(f"/runs/{run.pk}/cancel/").status_code == 302
            run.refresh_from_db()
            assert run.status == "cancelled"

        scenario.created_by = charlie  # the scenario's creator may cancel runs others started
        scenario.save()
        run = done_run(scenario, started_by=bob, status="queued")
        assert logged_in(charlie).post(f"/runs/{run.pk}/cancel/").status_code == 302
        run.refresh_from_db()
        assert run.status == "cancelled"

    def test_only_the_starter_the_scenarios_creator_and_staff_re_score_a_run(
        self, alice: User, bob: User, charlie: User, django_capture_on_commit_callbacks: Any
    ) -> None:
        scenario = bob_scenario(bob, created_by=alice)
        run = done_run(scenario, started_by=bob)
        url = f"/runs/{run.pk}/rescore/"

        refusal = "Only bob (who started it), alice (who created scenario “Bob scenario”) or staff can cancel or"
        with django_capture_on_commit_callbacks() as queued:
            assert_refused(logged_in(charlie).post(url), f"{refusal} re-score run #{run.pk}.")
        assert queued == []

        for user in (bob, alice):
            with django_capture_on_commit_callbacks() as queued:
                assert logged_in(user).post(url).status_code == 302
            assert len(queued) == 1

    def test_the_run_page_offers_cancel_and_re_score_only_to_who_may(
        self, alice: User, bob: User, charlie: User
    ) -> None:
        scenario = bob_scenario(bob)
        queued, done = done_run(scenario, started_by=bob, status="queued"), done_run(scenario, started_by=bob)

        for user, offered in ((charlie, False), (bob, True), (alice, True)):
            client = logged_in(user)
            assert (f"/runs/{queued.pk}/cancel/" in client.get(f"/runs/{queued.pk}/").content.decode()) is offered
            assert (f"/runs/{done.pk}/rescore/" in client.get(f"/runs/{done.pk}/").content.decode()) is offered


@pytest.mark.django_db
class ExperimentPermissionTests:
    """An experiment is cancelled by whoever started it, and staff."""

    def test_only_the_starter_and_staff_cancel_an_experiment_and_only_they_see_the_button(
        self, alice: User, bob: User, charlie: User
    ) -> None:
        scenario = bob_scenario(bob)

        def started() -> Experiment:
            models = [ModelChoice(offline_provider(), "evalhub-offline")]
            return experiment_start(name="Bob's", scenarios=[scenario], models=models, trials=2, user=bob)

        experiment = started()
        cancel = f"/experiments/{experiment.pk}/cancel/"
        assert cancel not in logged_in(charlie).get(f"/experiments/{experiment.pk}/").content.decode()
        refusal = f"Only bob (who started it) or staff can cancel experiment #{experiment.pk}."
        assert_refused(logged_in(charlie).post(cancel), refusal)
        experiment.refresh_from_db()
        assert experiment.status == "running"

        for user in (bob, alice):
            experiment = started()
            client, cancel = logged_in(user), f"/experiments/{experiment.pk}/cancel/"
            assert cancel in client.get(f"/experiments/{experiment.pk}/").content.decode()
            assert client.post(cancel).status_code == 302
            experiment.refresh_from_db()
            assert experiment.status == "cancelled"


@pytest.mark.django_db
class BaselinePinPermissionTests:
    """A tag's baseline is pinned by who started the experiment, whoever may change every scenario the tag
    holds, or staff: every `--baseline pinned` gate of the tag trusts it."""

    def bob_experiment(self, bob: User, scenarios: list[Scenario]) -> Experiment:
        models = [ModelChoice(offline_provider(), "evalhub-offline")]
        return experiment_start(name="Bob's", scenarios=scenarios, models=models, trials=1, user=bob, tag="smoke")

    def tagged(self, *scenarios: Scenario) -> list[Scenario]:
        tag = Tag.objects.get_or_create(name="smoke")[0]
        for scenario in scenarios:
            scenario.tags.add(tag)
        return list(scenarios)

    def test_an_outsider_may_not_pin_and_is_not_offered_the_button(self, bob: User, charlie: User) -> None:
        experiment = self.bob_experiment(bob, self.tagged(bob_scenario(bob)))
        page = logged_in(charlie).get(f"/experiments/{experiment.pk}/").content.decode()
        assert f"/experiments/{experiment.pk}/pin/" not in page

        refusal = (
            "Only bob (who started it), whoever may change every scenario tagged #smoke or staff can pin "
            f"experiment #{experiment.pk} as a baseline."
        )
        assert_refused(logged_in(charlie).post(f"/experiments/{experiment.pk}/pin/"), refusal)
        assert not BaselinePin.objects.exists()

    def test_owning_one_scenario_of_the_tag_is_not_enough(self, bob: User, charlie: User) -> None:
        # Hostile: charlie owns one of the tag's two scenarios; the pin would decide the gate of bob's too.
        scenarios = self.tagged(bob_scenario(bob), bob_scenario(charlie, name="Charlie scenario"))
        experiment = self.bob_experiment(bob, scenarios)

        assert logged_in(charlie).post(f"/experiments/{experiment.pk}/pin/").status_code == 403
        assert not BaselinePin.objects.exists()

    def test_the_starter_the_tags_owner_and_staff_pin_and_the_pin_records_who(
        self, alice: User, bob: User, charlie: User
    ) -> None:
        scenarios = self.tagged(bob_scenario(charlie, name="Charlie scenario"))
        for user in (bob, charlie, alice):  # bob started it, charlie owns the tag's scenario, alice is staff
            experiment = self.bob_experiment(bob, scenarios)
            client = logged_in(user)
            assert f"/experiments/{experiment.pk}/pin/" in client.get(f"/experiments/{experiment.pk}/").content.decode()
            assert client.post(f"/experiments/{experiment.pk}/pin/").status_code == 302
            pin = BaselinePin.objects.get(tag="smoke")
            assert (pin.experiment, pin.pinned_by) == (experiment, user)

        gated = experiment_start_requested(
            tag="smoke", models=[("evalhub-offline", None)], trials=1, user=bob, baseline="pinned"
        )
        page = logged_in(bob).get(f"/experiments/{gated.pk}/").content.decode()
        assert f"the pinned baseline of #smoke, pinned by alice on {pin.pinned_at:%Y-%m-%d %H:%M} UTC" in page
