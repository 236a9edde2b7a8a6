"""/api/v1/scorers: CRUD with versions, generate (not saved) and test on a run."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from scorers.models import Scorer
from tests.api.helpers import assert_error
from tests.api.records import finished_run
from tests.base import make_demo_server, make_scenario

CODE = """async ({ output }) => {
  console.log(`calls: ${output.allToolCalls.length}`);
  return output.allToolCalls.some((c) => c.toolName === "get_weather") ? 1 : 0;
};"""


def post(client: Client, path: str, data: Any) -> Any:
    return client.post(path, data, content_type="application/json")


@pytest.mark.django_db
class ScorerCrudTests:
    def test_it_creates_lists_and_gets_one(self, writer_api: Client) -> None:
        response = post(writer_api, "/api/v1/scorers", {"name": "Weather called", "code": CODE})

        assert response.status_code == 201, response.content
        created = response.json()
        assert (created["kind"], created["version"]) == ("code", 1)
        assert writer_api.get("/api/v1/scorers?kind=code").json()["total"] == 1
        assert writer_api.get(f"/api/v1/scorers/{created['id']}").json()["code"] == CODE

    def test_it_validates_with_the_scorer_form(self, writer_api: Client) -> None:
        error = assert_error(
            post(writer_api, "/api/v1/scorers", {"name": "Broken", "code": "async ( =>"}), 400, "VALIDATION_ERROR"
        )

        assert "code" in error["details"]["fields"]

    def test_a_judge_needs_a_prompt_and_labels(self, writer_api: Client) -> None:
        data = {"name": "Judge", "kind": "judge", "labels": "GOOD"}

        error = assert_error(post(writer_api, "/api/v1/scorers", data), 400, "VALIDATION_ERROR")

        assert {"system_prompt", "labels"} <= set(error["details"]["fields"])

    def test_changing_the_code_makes_a_new_version(self, writer_api: Client) -> None:
        created = post(writer_api, "/api/v1/scorers", {"name": "S", "code": CODE}).json()

        renamed = writer_api.patch(
            f"/api/v1/scorers/{created['id']}", {"description": "d"}, content_type="application/json"
        )
        changed = writer_api.patch(
            f"/api/v1/scorers/{created['id']}",
            {"code": CODE.replace("? 1 : 0", "? 1 : 0.5")},
            content_type="application/json",
        )

        assert renamed.json()["version"] == 1
        assert changed.json()["version"] == 2
        assert Scorer.objects.get(pk=created["id"]).versions.count() == 2

    def test_it_deletes_one(self, writer_api: Client) -> None:
        created = post(writer_api, "/api/v1/scorers", {"name": "S", "code": CODE}).json()

        assert writer_api.delete(f"/api/v1/scorers/{created['id']}").status_code == 204
        assert_error(writer_api.get(f"/api/v1/scorers/{created['id']}"), 404, "RESOURCE_NOT_FOUND")

    def test_writes_need_the_write_scope(self, reader_api: Client) -> None:
        assert_error(post(reader_api, "/api/v1/scorers", {"name": "S", "code": CODE}), 403, "INSUFFICIENT_PERMISSIONS")


@pytest.mark.django_db
class ScorerGenerateTests:
    def test_it_writes_code_from_a_description_without_saving(self, writer_api: Client) -> None:
        server = make_demo_server()
        server.record_tools([{"name": "get_weather", "description": "Weather", "inputSchema": {"type": "object"}}])

        response = post(
            writer_api, "/api/v1/scorers/generate", {"description": "get_weather is called", "server_id": server.pk}
        )

        assert response.status_code == 200, response.content
        body = response.json()
        assert body["source"] == "template" and "get_weather" in body["code"]
        assert not Scorer.objects.exists()

    def test_an_empty_description_is_a_validation_error(self, writer_api: Client) -> None:
        assert_error(post(writer_api, "/api/v1/scorers/generate", {"description": ""}), 400, "VALIDATION_ERROR")


@pytest.mark.django_db
class ScorerTestTests:
    def test_it_scores_a_finished_run(self, writer_api: Client) -> None:
        run = finished_run(make_scenario(make_demo_server()), score=1.0, passed=True)
        scorer = post(writer_api, "/api/v1/scorers", {"name": "S", "code": CODE}).json()

        response = post(writer_api, f"/api/v1/scorers/{scorer['id']}/test", {"run_id": run.pk})

        assert response.status_code == 200, response.content
        body = response.json()
        assert (body["outcome"], body["score"]) == ("ok", 1.0)
        assert body["console"][0]["text"] == "calls: 1"

    def test_a_missing_run_is_404(self, writer_api: Client) -> None:
        scorer = post(writer_api, "/api/v1/scorers", {"name": "S", "code": CODE}).json()

        assert_error(
            post(writer_api, f"/api/v1/scorers/{scorer['id']}/test", {"run_id": 4242}), 404, "RESOURCE_NOT_FOUND"
        )
