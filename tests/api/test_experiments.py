"""/api/v1/experiments: start (201 or 429 with what it needs), list, read, compare, reports, cancel."""

from __future__ import annotations

import csv
import io
from typing import Any
from xml.etree import ElementTree as ET

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings

from runs.experiments.models import Experiment
from runs.models import Run
from tests.api.helpers import assert_error
from tests.runs.experiments.helpers import finish, tagged_scenarios, trials_of

OFFLINE = [{"model": "evalhub-offline"}]


def post(client: Client, data: Any) -> Any:
    return client.post("/api/v1/experiments", data, content_type="application/json")


def finished(client: Client, passing: list[bool], *, label: str, baseline: Any = None) -> dict[str, Any]:
    """An experiment on the tag "smoke" (1 scenario, len(passing) trials) whose trials passed as given."""
    body = {"tag": "smoke", "models": OFFLINE, "trials": len(passing), "label": label, "baseline_id": baseline}
    answer = post(client, body).json()
    for run, passed in zip(trials_of(Experiment.objects.get(pk=answer["id"])), passing, strict=True):
        finish(run, passed=passed)
    return answer


@pytest.mark.django_db
class StartExperimentTests:
    def test_it_answers_201_with_the_experiment_and_its_runs_in_trial_order(self, writer_api: Client) -> None:
        tagged_scenarios(2)

        response = post(writer_api, {"tag": "smoke", "models": OFFLINE, "trials": 2, "label": "sha1"})

        assert response.status_code == 201, response.content
        body = response.json()
        assert (body["status"], body["progress"], body["label"], body["trials"]) == (
            "running",
            {"finished": 0, "total": 4},
            "sha1",
            2,
        )
        assert body["run_ids"] == list(Run.objects.order_by("pk").values_list("pk", flat=True))
        assert [(c["scenario_name"], c["model"], c["passes"], c["counted"]) for c in body["cells"]] == [
            ("Scenario 1", "evalhub-offline", 0, 0),
            ("Scenario 2", "evalhub-offline", 0, 0),
        ]
        assert Run.objects.get(pk=body["run_ids"][0]).started_by.username == "bob"  # type: ignore[union-attr]
        assert body["rerun_inconclusive"] is True  # on unless turned off

    def test_rerun_inconclusive_can_be_turned_off(self, writer_api: Client) -> None:
        tagged_scenarios(1)

        body = post(writer_api, {"tag": "smoke", "models": OFFLINE, "trials": 1, "rerun_inconclusive": False}).json()

        assert body["rerun_inconclusive"] is False
        assert not Experiment.objects.get().rerun_inconclusive

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=10)
    def test_over_quota_it_answers_429_with_what_it_needs_and_starts_nothing(self, writer_api: Client) -> None:
        tagged_scenarios(3)

        error = assert_error(post(writer_api, {"tag": "smoke", "models": OFFLINE, "trials": 4}), 429, "QUOTA_EXCEEDED")

        assert error["message"].startswith("This experiment needs 12 runs; 10 are left today; the quota resets")
        assert {k: error["details"][k] for k in ("needed", "remaining", "used", "limit")} == {
            "needed": 12,
            "remaining": 10,
            "used": 0,
            "limit": 10,
        }
        assert not Run.objects.exists()

    @pytest.mark.parametrize(
        ("body", "message"),
        [
            ({"models": OFFLINE}, "Send either scenario_ids or tag."),
            ({"tag": "smoke", "models": []}, "body.payload.models: List should have at least 1 item"),
            (
                {"tag": "smoke", "models": OFFLINE, "trials": 21},
                "body.payload.trials: Input should be less than or equal to 20",
            ),
            ({"tag": "nope", "models": OFFLINE}, "No scenario has the tag 'nope'."),
            ({"tag": "smoke", "models": [{"model": "gpt-9"}]}, "No provider serves the model 'gpt-9'"),
            ({"scenario_ids": [1], "models": OFFLINE, "baseline_id": "pinned"}, '"pinned" needs a tag'),
        ],
    )
    def test_bad_input_is_a_400_that_says_what_is_wrong(self, writer_api: Client, body: Any, message: str) -> None:
        (scenario,) = tagged_scenarios(1)
        if "scenario_ids" in body:  # ids are not reset between tests on PostgreSQL
            body = {**body, "scenario_ids": [scenario.pk]}

        error = assert_error(post(writer_api, body), 400, "VALIDATION_ERROR")

        assert message in error["message"]
        assert not Run.objects.exists()

    def test_it_needs_the_write_scope(self, reader_api: Client) -> None:
        assert_error(post(reader_api, {"tag": "smoke", "models": OFFLINE}), 403, "INSUFFICIENT_PERMISSIONS")


@pytest.mark.django_db
class ReadCompareReportCancelTests:
    def test_get_list_and_the_metrics_of_a_cell(self, writer_api: Client) -> None:
        tagged_scenarios(1)
        started = finished(writer_api, [True, False, True], label="v1")

        body = writer_api.get(f"/api/v1/experiments/{started['id']}").json()
        listed = writer_api.get("/api/v1/experiments").json()

        cell = body["cells"][0]
        assert (body["status"], body["progress"]) == ("done", {"finished": 3, "total": 3})
        assert (cell["passes"], cell["counted"], cell["k"], cell["flaky"]) == (2, 3, 3, True)
        assert (cell["pass_at_k"], cell["pass_hat_k"]) == (1.0, 0.0)
        assert cell["pass_at_1"] == pytest.approx(2 / 3)
        assert body["totals"][0]["pass_rate_interval"] == [
            pytest.approx(0.2077, abs=1e-4),
            pytest.approx(0.9385, abs=1e-4),
        ]
        assert (listed["total"], listed["items"][0]["id"], listed["items"][0]["label"]) == (1, started["id"], "v1")

    def test_compare_with_the_pinned_baseline_and_the_reports(self, writer_api: Client) -> None:
        tagged_scenarios(1)
        first = finished(writer_api, [True, True, True, True, True], label="good")
        Experiment.objects.get(pk=first["id"]).pins.create(tag="smoke")
        second = finished(writer_api, [False, False, False, False, False], label="bad", baseline="pinned")
        assert second["baseline_id"] == first["id"]

        comparison = writer_api.get(f"/api/v1/experiments/{second['id']}/compare").json()

        assert comparison["summary"] == "1 regressed, 0 fixed, 0 unchanged; cost ±0 %; p50 latency ±0 s"
        assert comparison["cells"][0]["kind"] == "regressed"
        junit = writer_api.get(f"/api/v1/experiments/{second['id']}/report?format=junit")
        case = ET.fromstring(junit.content).find("testsuite/testcase")
        assert case is not None and case.get("name") == "Scenario 1"
        failure = case.find("failure")
        assert (
            failure is not None and failure.get("message") == "Regressed: 0/5 passed, baseline 5/5 (Fisher p = 0.008)."
        )
        rows = list(
            csv.DictReader(
                io.StringIO(writer_api.get(f"/api/v1/experiments/{second['id']}/report?format=csv").content.decode())
            )
        )
        assert (rows[0]["passes"], rows[0]["trials"], rows[0]["verdict"]) == ("0", "5", "regressed")
        assert (rows[0]["inconclusive"], rows[0]["failure_causes"], rows[0]["self_judging"]) == ("0", "agent 5", "no")
        markdown = writer_api.get(f"/api/v1/experiments/{second['id']}/report?format=markdown").content.decode()
        assert "| Scenario 1 | 0/5 |" in markdown and "**1 regressed, 0 fixed, 0 unchanged" in markdown
        html = writer_api.get(f"/api/v1/experiments/{second['id']}/report?format=html")
        assert html["Content-Type"].startswith("text/html") and b"1 regressed" in html.content

    def test_an_experiment_on_the_pinned_baseline_records_who_pinned_it_and_when(
        self, writer_api: Client, alice: User
    ) -> None:
        tagged_scenarios(1)
        first = finished(writer_api, [True], label="good")
        pin = Experiment.objects.get(pk=first["id"]).pins.create(tag="smoke", pinned_by=alice)

        second = finished(writer_api, [True], label="next", baseline="pinned")
        pinned_at = second["baseline_pin"]["pinned_at"]
        assert pinned_at.startswith(f"{pin.pinned_at:%Y-%m-%dT%H:%M:%S.}")
        pin.pinned_by = None  # a later re-pin does not rewrite whose pin the gate trusted
        pin.save()

        expected = {"tag": "smoke", "pinned_by": "alice", "pinned_at": pinned_at}
        assert second["baseline_pin"] == expected
        assert writer_api.get(f"/api/v1/experiments/{second['id']}").json()["baseline_pin"] == expected
        listed = writer_api.get("/api/v1/experiments").json()["items"]
        assert [item["baseline_pin"] for item in listed] == [expected, None]
        by_id = finished(writer_api, [True], label="by id", baseline=first["id"])
        assert by_id["baseline_pin"] is None

    def test_compare_without_a_baseline_says_how_to_give_one(self, writer_api: Client) -> None:
        tagged_scenarios(1)
        started = finished(writer_api, [True], label="x")

        error = assert_error(writer_api.get(f"/api/v1/experiments/{started['id']}/compare"), 400, "VALIDATION_ERROR")

        assert error["message"] == "This experiment has no baseline: pass ?baseline=<experiment id>."

    def test_delete_cancels_what_has_not_finished(self, writer_api: Client) -> None:
        tagged_scenarios(1)
        started = post(writer_api, {"tag": "smoke", "models": OFFLINE, "trials": 3}).json()
        finish(Run.objects.get(pk=started["run_ids"][0]))

        body = writer_api.delete(f"/api/v1/experiments/{started['id']}").json()

        assert body["status"] == "cancelled" and body["progress"] == {"finished": 3, "total": 3}
        assert body["cells"][0]["counted"] == 1
        assert list(Run.objects.order_by("pk").values_list("status", flat=True)) == ["done", "cancelled", "cancelled"]

    def test_unknown_experiment_is_a_404(self, writer_api: Client) -> None:
        assert_error(writer_api.get("/api/v1/experiments/999"), 404, "RESOURCE_NOT_FOUND")
        assert_error(writer_api.delete("/api/v1/experiments/999"), 404, "RESOURCE_NOT_FOUND")
