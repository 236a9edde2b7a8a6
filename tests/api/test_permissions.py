"""Who may change what, through the API: the same rule and sentences as the pages (evalhub.permissions).

bob creates; charlie is another member; alice is staff. Each has a key with the scopes the change needs, so a
refusal here is about whose record it is, never about scopes.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.permissions import STDIO_STAFF_ONLY
from evalhub.providers.models import offline_provider
from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from runs.experiments.models import Experiment
from runs.experiments.services import ModelChoice, experiment_start
from runs.models import Run
from scorers.models import Scorer
from tests.api.conftest import ALL, key_client
from tests.api.helpers import assert_error
from tests.base import make_demo_server, make_scenario

WRITER = ["evaluate:read", "evaluate:write"]


@pytest.fixture
def apis(alice: User, bob: User, charlie: User) -> dict[str, Client]:
    return {"alice": key_client(alice, ALL), "bob": key_client(bob, WRITER), "charlie": key_client(charlie, WRITER)}


def patch(client: Client, url: str, data: dict[str, Any]) -> Any:
    return client.patch(url, data, content_type="application/json")


def assert_refused(response: Any, message: str) -> None:
    assert assert_error(response, 403, "INSUFFICIENT_PERMISSIONS")["message"] == message


def server_of(user: User | None, name: str = "Bob server") -> McpServer:
    return McpServer.objects.create(name=name, transport="http", url="https://mcp.example.com/mcp", created_by=user)


def scenario_of(user: User | None, name: str = "Bob scenario") -> Scenario:
    server = McpServer.objects.filter(name="Bob server").first() or server_of(user)
    return make_scenario(server, name=name, created_by=user)


def scorer_of(user: User | None, name: str = "Bob scorer") -> Scorer:
    return Scorer.objects.create(name=name, kind="code", code="async () => 1", created_by=user)


@pytest.mark.django_db
class ServerPermissionTests:
    REFUSAL = (
        "Only the creator of the MCP server “Bob server” (bob) or staff can change or delete it. "
        "Register a server of your own to use other settings."
    )

    def test_only_the_creator_and_staff_update_a_server(self, apis: dict[str, Client], bob: User) -> None:
        server = server_of(bob)
        url = f"/api/v1/servers/{server.pk}"

        assert_refused(patch(apis["charlie"], url, {"url": "https://charlie.example.com/mcp"}), self.REFUSAL)
        server.refresh_from_db()
        assert server.url == "https://mcp.example.com/mcp"

        for name in ("bob", "alice"):
            response = patch(apis[name], url, {"description": f"by {name}"})
            assert response.status_code == 200, response.content
            assert response.json()["description"] == f"by {name}"

    def test_only_the_creator_and_staff_delete_a_server(self, apis: dict[str, Client], bob: User) -> None:
        server = server_of(bob)

        assert_refused(apis["charlie"].delete(f"/api/v1/servers/{server.pk}"), self.REFUSAL)
        assert McpServer.objects.filter(pk=server.pk).exists()

        for name in ("bob", "alice"):
            server = server_of(bob, name=f"For {name} to delete")
            assert apis[name].delete(f"/api/v1/servers/{server.pk}").status_code == 204
            assert not McpServer.objects.filter(pk=server.pk).exists()

    def test_a_stdio_server_staff_created_is_not_deleted_by_its_non_staff_creator_or_others(
        self, apis: dict[str, Client], alice: User, bob: User
    ) -> None:
        # The audit's case: the API deleted a stdio server that the page refused to delete.
        by_alice, by_bob = make_demo_server(created_by=alice), make_demo_server(name="Made stdio", created_by=bob)

        assert_refused(apis["bob"].delete(f"/api/v1/servers/{by_alice.pk}"), STDIO_STAFF_ONLY)
        assert_refused(apis["bob"].delete(f"/api/v1/servers/{by_bob.pk}"), STDIO_STAFF_ONLY)
        assert McpServer.objects.count() == 2

        assert apis["alice"].delete(f"/api/v1/servers/{by_bob.pk}").status_code == 204

    def test_a_server_without_a_recorded_creator_is_staffs(self, apis: dict[str, Client]) -> None:
        server = server_of(None)

        response = patch(apis["bob"], f"/api/v1/servers/{server.pk}", {"description": "mine?"})

        assert_refused(
            response,
            "The MCP server “Bob server” has no recorded creator, so only staff can change or delete it. "
            "Register a server of your own to use other settings.",
        )
        assert patch(apis["alice"], f"/api/v1/servers/{server.pk}", {"description": "ok"}).status_code == 200


@pytest.mark.django_db
class ScenarioPermissionTests:
    REFUSAL = (
        "Only the creator of the scenario “Bob scenario” (bob) or staff can change or delete it. "
        "Duplicate it to get a copy you can change."
    )

    def test_only_the_creator_and_staff_update_a_scenario(self, apis: dict[str, Client], bob: User) -> None:
        scenario = scenario_of(bob)
        url = f"/api/v1/scenarios/{scenario.pk}"

        assert_refused(patch(apis["charlie"], url, {"prompt": "Say something else"}), self.REFUSAL)
        scenario.refresh_from_db()
        assert scenario.prompt == "What's the weather at latitude 48.85, longitude 2.35?"

        for name in ("bob", "alice"):
            response = patch(apis[name], url, {"prompt": f"Asked by {name}"})
            assert response.status_code == 200, response.content
            assert response.json()["prompt"] == f"Asked by {name}"

    def test_only_the_creator_and_staff_delete_a_scenario(self, apis: dict[str, Client], bob: User) -> None:
        scenario = scenario_of(bob)

        assert_refused(apis["charlie"].delete(f"/api/v1/scenarios/{scenario.pk}"), self.REFUSAL)
        assert Scenario.objects.filter(pk=scenario.pk).exists()

        for name in ("bob", "alice"):
            scenario = scenario_of(bob, name=f"For {name} to delete")
            assert apis[name].delete(f"/api/v1/scenarios/{scenario.pk}").status_code == 204
            assert not Scenario.objects.filter(pk=scenario.pk).exists()

    def test_everyone_runs_and_duplicates_it_and_the_copy_is_theirs(
        self, apis: dict[str, Client], bob: User, charlie: User
    ) -> None:
        scenario = scenario_of(bob)

        run = apis["charlie"].post(f"/api/v1/scenarios/{scenario.pk}/runs", content_type="application/json")
        copy = apis["charlie"].post(f"/api/v1/scenarios/{scenario.pk}/duplicate").json()
        renamed = patch(apis["charlie"], f"/api/v1/scenarios/{copy['id']}", {"name": "Charlie scenario"})

        assert run.status_code == 201 and Run.objects.get().started_by == charlie
        assert renamed.status_code == 200 and renamed.json()["name"] == "Charlie scenario"
        assert_refused(patch(apis["charlie"], f"/api/v1/scenarios/{scenario.pk}", {"name": "Mine"}), self.REFUSAL)


@pytest.mark.django_db
class ScorerPermissionTests:
    REFUSAL = (
        "Only the creator of the scorer “Bob scorer” (bob) or staff can change or delete it. "
        "Duplicate it to get a copy you can change."
    )

    def test_only_the_creator_and_staff_update_a_scorer(self, apis: dict[str, Client], bob: User) -> None:
        scorer = scorer_of(bob)
        url = f"/api/v1/scorers/{scorer.pk}"

        assert_refused(patch(apis["charlie"], url, {"code": "async () => 0"}), self.REFUSAL)
        scorer.refresh_from_db()
        assert (scorer.code, scorer.version) == ("async () => 1", 1)

        for version, name in enumerate(("bob", "alice"), start=2):
            response = patch(apis[name], url, {"code": f"async () => {version / 10}"})
            assert response.status_code == 200, response.content
            assert response.json()["version"] == version

    def test_only_the_creator_and_staff_delete_a_scorer(self, apis: dict[str, Client], bob: User) -> None:
        scorer = scorer_of(bob)

        assert_refused(apis["charlie"].delete(f"/api/v1/scorers/{scorer.pk}"), self.REFUSAL)
        assert Scorer.objects.filter(pk=scorer.pk).exists()

        for name in ("bob", "alice"):
            scorer = scorer_of(bob, name=f"For {name} to delete")
            assert apis[name].delete(f"/api/v1/scorers/{scorer.pk}").status_code == 204
            assert not Scorer.objects.filter(pk=scorer.pk).exists()


@pytest.mark.django_db
class RunPermissionTests:
    def test_only_the_starter_the_scenarios_creator_and_staff_cancel_a_run(
        self, apis: dict[str, Client], bob: User, charlie: User
    ) -> None:
        scenario = scenario_of(None)

        def queued(started_by: User) -> Run:
            return Run.objects.create(scenario=scenario, model="evalhub-offline", started_by=started_by)

        run = queued(bob)
        assert_refused(
            apis["charlie"].delete(f"/api/v1/runs/{run.pk}"),
            f"Only bob (who started it) or staff can cancel or re-score run #{run.pk}.",
        )
        run.refresh_from_db()
        assert (run.status, run.cancel_requested) == ("queued", False)

        for name in ("bob", "alice"):
            run = queued(bob)
            assert apis[name].delete(f"/api/v1/runs/{run.pk}").json()["status"] == "cancelled"

        scenario.created_by = charlie  # whoever may change the scenario may cancel its runs
        scenario.save()
        assert apis["charlie"].delete(f"/api/v1/runs/{queued(bob).pk}").json()["status"] == "cancelled"


@pytest.mark.django_db
def test_the_api_description_states_the_rule(reader_api: Client) -> None:
    description = reader_api.get("/api/v1/openapi.json").json()["info"]["description"]

    assert "a server,\nscenario or scorer is updated or deleted only by its creator or staff" in description
    assert "a run is cancelled by who started it, whoever may change its scenario, or staff" in description


@pytest.mark.django_db
class ExperimentPermissionTests:
    def test_only_the_starter_and_staff_cancel_an_experiment(
        self, apis: dict[str, Client], bob: User, charlie: User
    ) -> None:
        def started(by: User | None) -> Experiment:
            models = [ModelChoice(offline_provider(), "evalhub-offline")]
            return experiment_start(name="Bob's", scenarios=[scenario], models=models, trials=2, user=by)

        scenario = scenario_of(bob)
        experiment = started(bob)
        assert_refused(
            apis["charlie"].delete(f"/api/v1/experiments/{experiment.pk}"),
            f"Only bob (who started it) or staff can cancel experiment #{experiment.pk}.",
        )
        experiment.refresh_from_db()
        assert experiment.status == "running"
        assert set(experiment.runs.values_list("status", flat=True)) == {"queued"}

        # Hostile: an experiment with no recorded creator (started on the command line) is staff's alone.
        orphan = started(None)
        assert_refused(
            apis["bob"].delete(f"/api/v1/experiments/{orphan.pk}"),
            f"Only staff (it has no recorded creator) can cancel experiment #{orphan.pk}.",
        )

        for name in ("bob", "alice"):
            experiment = started(bob)
            assert apis[name].delete(f"/api/v1/experiments/{experiment.pk}").json()["status"] == "cancelled"
