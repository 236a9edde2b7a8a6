"""POST /api/v1/runs/{id}/replay and /fork, and the run page's Replay button, on a run of the offline model."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from runs import pipeline
from runs.models import Run
from tests.api.conftest import key_client
from tests.base import make_demo_server, make_scenario
from tests.runs.test_pipeline import execute

WRITE = ["evaluate:read", "evaluate:write"]


@pytest.fixture
def recorded_run(alice: User) -> Run:
    return execute(make_scenario(make_demo_server()), alice)


@pytest.mark.django_db(transaction=True)
class ReplayApiTests:
    def test_it_starts_an_offline_replay_marked_as_such(self, alice: User, recorded_run: Run) -> None:
        response = key_client(alice, WRITE).post(
            f"/api/v1/runs/{recorded_run.pk}/replay", {"mcp": "cassette"}, content_type="application/json"
        )

        assert response.status_code == 201, response.content
        body = response.json()
        assert body["status"] == "queued" and body["replay"] == {"mode": "cassette", "of": recorded_run.pk}
        pipeline.execute_run(body["id"], worker="test-worker")
        got = key_client(alice, ["evaluate:read"]).get(f"/api/v1/runs/{body['id']}").json()
        assert (got["verdict"], got["replay"]["mode"]) == ("pass", "cassette")
        listed = key_client(alice, ["evaluate:read"]).get("/api/v1/runs").json()["items"]
        assert {run["id"]: run["replay"] for run in listed} == {
            body["id"]: {"mode": "cassette", "of": recorded_run.pk},
            recorded_run.pk: None,
        }

    def test_it_refuses_an_unknown_mcp_mode(self, alice: User, recorded_run: Run) -> None:
        response = key_client(alice, WRITE).post(
            f"/api/v1/runs/{recorded_run.pk}/replay", {"mcp": "maybe"}, content_type="application/json"
        )

        assert response.status_code == 400
        assert Run.objects.count() == 1

    def test_a_run_without_a_cassette_is_a_conflict(self, alice: User, recorded_run: Run) -> None:
        recorded_run.cassette.delete()

        response = key_client(alice, WRITE).post(
            f"/api/v1/runs/{recorded_run.pk}/replay", {"mcp": "cassette"}, content_type="application/json"
        )

        assert response.status_code == 409
        assert "has no cassette" in response.json()["error"]["message"]

    def test_it_needs_the_write_scope(self, alice: User, recorded_run: Run) -> None:
        response = key_client(alice, ["evaluate:read"]).post(
            f"/api/v1/runs/{recorded_run.pk}/replay", {"mcp": "cassette"}, content_type="application/json"
        )

        assert response.status_code == 403

    def test_a_fork_past_the_last_step_names_at_step(self, alice: User, recorded_run: Run) -> None:
        response = key_client(alice, WRITE).post(
            f"/api/v1/runs/{recorded_run.pk}/fork",
            {"at_step": 9, "change": {"kind": "system_prompt", "system_prompt": "Be brief."}},
            content_type="application/json",
        )

        assert response.status_code == 400
        error = response.json()["error"]
        assert error["details"]["field"] == "at_step" and "made 2 model call(s)" in error["message"]

    def test_a_fork_with_an_unknown_change_names_the_kind(self, alice: User, recorded_run: Run) -> None:
        response = key_client(alice, WRITE).post(
            f"/api/v1/runs/{recorded_run.pk}/fork",
            {"at_step": 1, "change": {"kind": "weather"}},
            content_type="application/json",
        )

        assert response.status_code == 400
        assert response.json()["error"]["message"].startswith("change.kind: 'weather' is not one of")


@pytest.mark.django_db(transaction=True)
class ReplayPageTests:
    def test_the_run_page_offers_replays_and_a_replay_links_to_its_parent(
        self, alice: User, alice_client: Client, recorded_run: Run
    ) -> None:
        page = alice_client.get(f"/runs/{recorded_run.pk}/").content.decode()
        assert 'id="replay-form"' in page and "Fork from here" in page and 'id="cassette-size"' in page

        response = alice_client.post(f"/runs/{recorded_run.pk}/replay/", {"mcp": "live"})

        replay = Run.objects.get(replay_of=recorded_run)
        assert response.status_code == 302 and response["Location"] == f"/runs/{replay.pk}/"
        assert replay.replay == "live"
        page = alice_client.get(f"/runs/{replay.pk}/").content.decode()
        assert 'id="replay-bar"' in page and f'href="/runs/{recorded_run.pk}/"' in page
        assert f"?baseline={recorded_run.pk}" in page  # the first-divergence view of the pair

    def test_replaying_needs_a_post(self, alice_client: Client, recorded_run: Run) -> None:
        assert alice_client.get(f"/runs/{recorded_run.pk}/replay/").status_code == 405

    def test_replaying_needs_login(self, recorded_run: Run) -> None:
        response = Client().post(f"/runs/{recorded_run.pk}/replay/", {"mcp": "cassette"})

        assert response.status_code == 302 and "/login" in response["Location"]
        assert Run.objects.count() == 1

    def test_the_fork_form_starts_a_fork_with_its_change(
        self, alice: User, alice_client: Client, recorded_run: Run
    ) -> None:
        response = alice_client.post(
            f"/runs/{recorded_run.pk}/fork/",
            {"at_step": "1", "kind": "tool_result", "call": "1", "result_text": "No data.", "is_error": "on"},
        )

        forked = Run.objects.get(replay_of=recorded_run)
        assert response["Location"] == f"/runs/{forked.pk}/"
        assert forked.settings["fork"] == {
            "at_step": 1,
            "change": {
                "kind": "tool_result",
                "call": 0,
                "result": {"content": [{"type": "text", "text": "No data."}], "isError": True},
            },
        }

    def test_the_fork_form_names_a_bad_input_schema(self, alice_client: Client, recorded_run: Run) -> None:
        response = alice_client.post(
            f"/runs/{recorded_run.pk}/fork/",
            {"at_step": "1", "kind": "tool", "tool": "get_weather", "input_schema": "{not json"},
            follow=True,
        )

        assert (
            "Could not fork run" in response.content.decode() and "input_schema: not JSON" in response.content.decode()
        )
        assert Run.objects.count() == 1
