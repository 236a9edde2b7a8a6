"""/api/v1/runs/{id}/reviews and /api/v1/reviews: review by API (201), the run carries its reviews and human
verdict, delete one's own (staff any), scopes as the other run endpoints, and the JSONL export."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from runs.models import Review, Run
from tests.api.conftest import ALL, KeyClient, key_client
from tests.api.helpers import assert_error
from tests.runs.reviews.helpers import demo_scenario, judged_run

WRITER = ["evaluate:read", "evaluate:write"]


def post(client: Client, run: Run, body: dict[str, Any]) -> Any:
    return client.post(f"/api/v1/runs/{run.pk}/reviews", body, content_type="application/json")


@pytest.mark.django_db
class ReviewApiTests:
    def test_a_review_is_201_and_the_run_then_carries_it(self, bob: User) -> None:
        run = judged_run(demo_scenario(), passed=True)
        api = key_client(bob, WRITER)

        response = post(api, run, {"verdict": "fail", "note": "asked nothing before booking", "score": 0.2})

        assert response.status_code == 201, response.content
        body = response.json()
        assert (body["verdict"], body["auto_verdict"], body["human_verdict"]) == ("fail", "pass", "fail")
        assert body["review"]["reviewer"] == "bob" and body["review"]["score"] == 0.2
        record = api.get(f"/api/v1/runs/{run.pk}").json()
        assert (record["verdict"], record["passed"], record["human_verdict"], record["auto_verdict"]) == (
            "fail",
            False,
            "fail",
            "pass",
        )
        assert record["failure_cause"] == "review"
        assert [(r["reviewer"], r["verdict"], r["note"]) for r in record["reviews"]] == [
            ("bob", "fail", "asked nothing before booking")
        ]
        listed = api.get("/api/v1/runs").json()["items"][0]
        assert (listed["verdict"], listed["human_verdict"]) == ("fail", "fail")

    def test_an_unreviewed_run_has_no_human_verdict(self, bob: User) -> None:
        run = judged_run(demo_scenario())
        record = key_client(bob, WRITER).get(f"/api/v1/runs/{run.pk}").json()
        assert (record["human_verdict"], record["reviews"]) == (None, [])

    @pytest.mark.parametrize(
        ("body", "where"),
        [({"verdict": "maybe"}, "body.payload.verdict"), ({"verdict": "pass", "score": 2}, "body.payload.score")],
    )
    def test_bad_input_is_a_400_naming_the_field(self, bob: User, body: dict[str, Any], where: str) -> None:
        run = judged_run(demo_scenario())
        error = assert_error(post(key_client(bob, WRITER), run, body), 400, "VALIDATION_ERROR")
        assert error["message"].startswith(where)
        assert not Review.objects.exists()

    def test_an_unfinished_run_is_refused_and_a_missing_one_is_404(self, bob: User) -> None:
        queued = Run.objects.create(scenario=demo_scenario(), model="evalhub-offline")
        api = key_client(bob, WRITER)
        error = assert_error(post(api, queued, {"verdict": "pass"}), 400, "VALIDATION_ERROR")
        assert "has no verdict yet (queued)" in error["message"] and error["details"] == {"field": "run"}
        response = api.post("/api/v1/runs/999999/reviews", {"verdict": "pass"}, content_type="application/json")
        assert_error(response, 404, "RESOURCE_NOT_FOUND")

    def test_reviewing_needs_the_write_scope(self, bob: User, make_client: KeyClient) -> None:
        run = judged_run(demo_scenario())
        assert_error(post(make_client(bob, "evaluate:read"), run, {"verdict": "pass"}), 403, "INSUFFICIENT_PERMISSIONS")
        assert not Review.objects.exists()


@pytest.mark.django_db
class ReviewDeleteApiTests:
    def test_own_review_yes_someone_elses_no_staff_any(self, alice: User, bob: User, charlie: User) -> None:
        run = judged_run(demo_scenario(), passed=True)
        bobs = key_client(bob, WRITER)
        review_id = post(bobs, run, {"verdict": "fail"}).json()["review"]["id"]
        url = f"/api/v1/runs/{run.pk}/reviews/{review_id}"

        refused = assert_error(key_client(charlie, WRITER).delete(url), 403, "INSUFFICIENT_PERMISSIONS")
        assert refused["message"] == f"Only bob (who wrote it) or staff can delete review #{review_id}."

        response = key_client(alice, ALL).delete(url)
        assert response.status_code == 200
        assert response.json() == {"run_id": run.pk, "verdict": "pass", "auto_verdict": "pass", "human_verdict": None}

        own_id = post(bobs, run, {"verdict": "fail"}).json()["review"]["id"]
        assert bobs.delete(f"/api/v1/runs/{run.pk}/reviews/{own_id}").status_code == 200
        assert not Review.objects.exists()
        assert_error(bobs.delete(f"/api/v1/runs/{run.pk}/reviews/{own_id}"), 404, "RESOURCE_NOT_FOUND")


@pytest.mark.django_db
class ReviewExportApiTests:
    def test_jsonl_with_the_export_scope(self, bob: User, make_client: KeyClient) -> None:
        run = judged_run(demo_scenario(), passed=False)
        post(key_client(bob, WRITER), run, {"verdict": "pass", "note": "the tool was down; it said so"})

        response = make_client(bob, "evaluate:export").get("/api/v1/reviews?format=jsonl")

        assert response.status_code == 200 and response["Content-Type"].startswith("application/x-ndjson")
        (line,) = [json.loads(text) for text in b"".join(response.streaming_content).decode().splitlines()]
        assert (line["run_id"], line["automatic_verdict"], line["human_verdict"], line["reviewer"]) == (
            run.pk,
            "fail",
            "pass",
            "bob",
        )
        assert line["note"] == "the tool was down; it said so"
        assert_error(make_client(bob, "evaluate:read").get("/api/v1/reviews"), 403, "INSUFFICIENT_PERMISSIONS")

    def test_an_id_no_record_can_have_is_a_400_naming_the_parameter(self, bob: User, make_client: KeyClient) -> None:
        # One past the largest 64-bit id reached the database and answered 500 (SQLite cannot hold it).
        response = make_client(bob, "evaluate:export").get("/api/v1/reviews?experiment_id=9223372036854775808")

        assert assert_error(response, 400, "VALIDATION_ERROR")["message"].startswith("query.experiment_id")


@pytest.mark.django_db
class SuiteExportTests:
    def test_a_suite_export_leaves_reviews_out(self, bob: User) -> None:
        scenario = demo_scenario(name="Booking scenario")
        run = judged_run(scenario)
        post(key_client(bob, WRITER), run, {"verdict": "fail", "note": "REVIEW-NOTE-NOT-IN-SUITES"})

        text = key_client(bob, ["evaluate:read"]).get("/api/v1/suites/export").content.decode()

        assert "booking scenario" in text.lower()
        assert "REVIEW-NOTE-NOT-IN-SUITES" not in text and "reviews" not in text and "human_verdict" not in text
