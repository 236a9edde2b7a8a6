"""review_save / review_delete: the human verdict becomes the run's verdict (kept beside the automatic one), and
experiments, their gate and JUnit, reports and events follow it."""

from __future__ import annotations

from typing import Any
from xml.etree import ElementTree as ET

import pytest
from django.contrib.auth.models import User
from django.test import Client

from runs.events.models import RunEvent
from runs.experiments.metrics import cells_refresh
from runs.experiments.models import ExperimentCell
from runs.experiments.reports import gate, to_junit
from runs.models import Review, Run
from runs.reviews.services import ReviewRefused, review_delete, review_save
from runs.run_verdict import apply_verdict
from tests.runs.experiments.helpers import start, tagged_scenarios, trials_of
from tests.runs.reviews.helpers import JUDGE_REASON, demo_scenario, judge, judged_run

Capture = Any  # pytest-django's django_capture_on_commit_callbacks


@pytest.mark.django_db
class OverrideTests:
    def test_a_review_that_fails_a_passed_run_makes_it_fail_and_keeps_the_automatic_verdict(
        self, bob: User, django_capture_on_commit_callbacks: Capture
    ) -> None:
        run = judged_run(demo_scenario(), passed=True)
        assert (run.verdict, run.auto_verdict, run.human_verdict) == ("pass", "pass", "")

        with django_capture_on_commit_callbacks(execute=True):
            review_save(run=run, reviewer=bob, verdict="fail", note="asked nothing before booking")

        run.refresh_from_db()
        assert (run.verdict, run.passed, run.auto_verdict, run.human_verdict) == ("fail", False, "pass", "fail")
        assert run.failure_cause == "review"
        assert run.failure_reason == "Reviewed fail by bob: “asked nothing before booking”"

    def test_a_review_that_passes_a_failed_run_clears_its_cause_and_deleting_it_brings_the_rule_back(
        self, bob: User
    ) -> None:
        run = judged_run(demo_scenario(), passed=False)
        assert (run.verdict, run.failure_cause) == ("fail", "agent")
        reason = run.failure_reason

        review = review_save(run=run, reviewer=bob, verdict="pass")
        run.refresh_from_db()
        assert (run.verdict, run.passed, run.failure_cause, run.failure_reason) == ("pass", True, "", "")

        review_delete(review=review)
        run.refresh_from_db()
        assert (run.verdict, run.human_verdict, run.failure_cause, run.failure_reason) == ("fail", "", "agent", reason)

    def test_a_person_changes_their_own_review_rather_than_adding_one(self, bob: User) -> None:
        run = judged_run(demo_scenario(), passed=True)
        review_save(run=run, reviewer=bob, verdict="fail", note="first look")
        review_save(run=run, reviewer=bob, verdict="pass", note="second look", score=0.8)

        (review,) = Review.objects.filter(run=run)
        assert (review.verdict, review.note, review.score, review.auto_verdict) == ("pass", "second look", 0.8, "pass")
        run.refresh_from_db()
        assert run.verdict == "pass"

    def test_two_reviewers_who_disagree_the_latest_decides(self, bob: User, charlie: User) -> None:
        run = judged_run(demo_scenario(), passed=True)
        review_save(run=run, reviewer=bob, verdict="pass")
        review_save(run=run, reviewer=charlie, verdict="fail", note="wrong city")
        run.refresh_from_db()
        assert (run.human_verdict, run.verdict) == ("fail", "fail")
        assert run.failure_reason == "Reviewed fail by charlie: “wrong city”"

        review_save(run=run, reviewer=bob, verdict="pass", note="looked again")  # now bob's is the latest
        run.refresh_from_db()
        assert (run.human_verdict, run.verdict) == ("pass", "pass")

    def test_rescoring_a_reviewed_run_keeps_the_human_verdict(self, bob: User) -> None:
        run = judged_run(demo_scenario(), passed=True)
        review_save(run=run, reviewer=bob, verdict="fail")
        run.refresh_from_db()
        judge(run, passed=True)  # the worker scores it again: the rule still says pass
        run.refresh_from_db()
        assert (run.auto_verdict, run.verdict) == ("pass", "fail")

    @pytest.mark.parametrize(
        ("fields", "message"),
        [
            ({"verdict": "maybe"}, "verdict: “maybe” is not a verdict; send “pass” or “fail”."),
            ({"verdict": "pass", "score": 1.5}, "score: 1.5 is outside 0..1"),
            ({"verdict": "pass", "note": "x" * 2001}, "note: 2001 characters; keep it to 2000."),
        ],
    )
    def test_bad_input_is_refused_naming_the_field(self, bob: User, fields: dict[str, Any], message: str) -> None:
        run = judged_run(demo_scenario())
        with pytest.raises(ReviewRefused, match=message.replace(".", r"\.").replace("(", r"\(")):
            review_save(run=run, reviewer=bob, **fields)
        assert not Review.objects.exists()

    def test_a_run_without_a_verdict_cannot_be_reviewed_yet(self, bob: User) -> None:
        run = Run.objects.create(scenario=demo_scenario(), model="evalhub-offline")
        with pytest.raises(ReviewRefused, match=r"Run #\d+ has no verdict yet \(queued\)"):
            review_save(run=run, reviewer=bob, verdict="pass")

    def test_the_event_says_the_new_verdict_and_nothing_a_blind_reviewer_must_not_see(
        self, bob: User, django_capture_on_commit_callbacks: Capture
    ) -> None:
        run = judged_run(demo_scenario(), passed=True)
        with django_capture_on_commit_callbacks(execute=True):
            review_save(run=run, reviewer=bob, verdict="fail", note="SECRET NOTE")

        (event,) = RunEvent.objects.filter(type="run.reviewed")
        assert event.run_id == run.pk
        assert {k: v for k, v in event.data.items() if k != "timestamp"} == {
            "run_id": run.pk,
            "scenario_id": run.scenario_id,
            "verdict": "fail",
            "passed": False,
            "human_verdict": "fail",
            "reviews": 1,
        }
        text = str(event.data)
        assert "auto_verdict" not in text and "score" not in text and JUDGE_REASON not in text
        assert "SECRET NOTE" not in text


@pytest.mark.django_db
class ExperimentFollowsReviewsTests:
    def test_the_cell_the_gate_and_junit_count_the_human_verdict(
        self, alice: User, bob: User, django_capture_on_commit_callbacks: Capture
    ) -> None:
        experiment = start(tagged_scenarios(1), trials=3)
        with django_capture_on_commit_callbacks(execute=True):
            for run in trials_of(experiment):
                judge(run, passed=True)
            cells_refresh(cell_ids=list(experiment.cells.values_list("pk", flat=True)))
        api = Client()
        api.force_login(alice)

        def gated() -> list[Any]:
            record = api.get(f"/api/v1/experiments/{experiment.pk}").json()
            return gate(record, None, fail_on_regression=False, min_pass_rate=1.0)

        cell = ExperimentCell.objects.get(experiment=experiment)
        assert (cell.passes, cell.counted) == (3, 3)
        assert not gated()[0].failures

        first = trials_of(experiment)[0]
        with django_capture_on_commit_callbacks(execute=True):
            review_save(run=first, reviewer=bob, verdict="fail", note="booked without asking")

        cell.refresh_from_db()
        assert (cell.passes, cell.counted, cell.failure_causes) == (2, 3, {"review": 1})
        (result,) = gated()
        assert result.failures, "a trial people failed fails the gate (CLI exit 1)"
        junit = ET.fromstring(to_junit([result], title="t"))
        assert junit.find(".//failure") is not None

        # The single run's own JUnit report follows it too.
        report = api.get(f"/runs/{first.pk}/report.junit")
        assert b"<failure" in report.content and b"booked without asking" in report.content

    def test_apply_verdict_alone_never_invents_a_human_verdict(self) -> None:
        run = judged_run(demo_scenario(), passed=True)
        apply_verdict(run, list(run.score_results.all()))
        assert (run.verdict, run.human_verdict) == ("pass", "")
