"""The Review page: a queue from a filter, stratified; blind mode hides the automatic verdict, scores and reasons
(in the HTML and in any event) until the reviewer answers; progress; agreement; the JSONL export."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from runs.events.models import RunEvent
from runs.models import Review, Run
from runs.reviews.queue import SESSION_KEY
from runs.reviews.services import review_save
from tests.runs.experiments.helpers import start, tagged_scenarios
from tests.runs.reviews.helpers import JUDGE_REASON, demo_scenario, judged_run

Capture = Any


def client_of(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def build(client: Client, **fields: str) -> str:
    """POST the Review page's form; the first item's URL."""
    response = client.post(reverse("runs:reviews"), {"size": "20", "blind": "1", **fields})
    assert response.status_code == 302, response.content.decode()[:500]
    return str(response["Location"])


def queue_ids(client: Client) -> list[int]:
    (queue,) = client.session[SESSION_KEY].values()
    return list(queue["run_ids"])


@pytest.mark.django_db
class QueueBuildTests:
    def test_the_queue_takes_both_verdicts_from_the_filtered_runs(self, bob: User) -> None:
        scenario, other = demo_scenario(), demo_scenario(name="Other")
        passes = [judged_run(scenario, passed=True) for _ in range(8)]
        fails = [judged_run(scenario, passed=False) for _ in range(2)]
        judged_run(other, passed=False)
        client = client_of(bob)

        url = build(client, scenario=str(scenario.pk), size="6")

        assert url.endswith("/1/")
        ids = queue_ids(client)
        assert len(ids) == 6
        assert set(ids) >= {run.pk for run in fails}, "both failures are in, not six passes"
        assert set(ids) <= {run.pk for run in passes + fails}

    def test_not_yet_reviewed_by_me_and_only_where_the_automatic_verdict_is(self, bob: User, charlie: User) -> None:
        scenario = demo_scenario()
        mine, theirs, fresh = (judged_run(scenario, passed=False) for _ in range(3))
        judged_run(scenario, passed=True)
        review_save(run=mine, reviewer=bob, verdict="fail")
        review_save(run=theirs, reviewer=charlie, verdict="fail")
        client = client_of(bob)

        build(client, unreviewed="1", auto_verdict="fail")

        assert sorted(queue_ids(client)) == sorted([theirs.pk, fresh.pk])

    def test_an_empty_filter_says_so_and_a_bad_date_is_named(self, bob: User) -> None:
        client = client_of(bob)
        page = client.post(reverse("runs:reviews"), {"size": "5", "blind": "1"}, follow=True).content.decode()
        assert "No run to review matches all finished runs." in page
        page = client.post(reverse("runs:reviews"), {"size": "5", "from": "yesterday"}).content.decode()
        assert "From: “yesterday” is not a date; use YYYY-MM-DD." in page
        page = client.post(reverse("runs:reviews"), {"size": "500"}).content.decode()
        assert "Runs: “500” is not a number from 1 to 200." in page

    def test_the_experiment_page_links_to_a_prefilled_queue(self, bob: User) -> None:
        experiment = start(tagged_scenarios(1), trials=2)
        client = client_of(bob)
        page = client.get(reverse("experiments:detail", args=[experiment.pk])).content.decode()
        link = f"{reverse('runs:reviews')}?experiment={experiment.pk}&amp;size=20&amp;blind=1"
        assert link in page
        form = client.get(link.replace("&amp;", "&")).content.decode()
        assert f'<option value="{experiment.pk}" selected>' in form

    def test_it_needs_csrf(self, bob: User) -> None:
        client = Client(enforce_csrf_checks=True)
        client.force_login(bob)
        assert client.post(reverse("runs:reviews"), {"size": "5"}).status_code == 403


@pytest.mark.django_db
class BlindModeTests:
    def test_nothing_automatic_shows_until_the_reviewer_answers(
        self, bob: User, django_capture_on_commit_callbacks: Capture
    ) -> None:
        run = judged_run(demo_scenario(), passed=True)
        client = client_of(bob)
        url = build(client)

        page = client.get(url).content.decode()
        assert 'id="review-progress">1 / 1<' in page
        for leak in (JUDGE_REASON, "Restraint judge", "0.93", 'data-verdict="', 'id="verdict"', "Judged pass"):
            assert leak not in page, leak
        assert "data-live-events" not in page  # no event stream may bring the verdict in either
        assert 'id="blind-badge"' in page and 'data-review-key="p"' in page

        with django_capture_on_commit_callbacks(execute=True):
            response = client.post(url, {"verdict": "fail", "note": "asked nothing"})
        assert response["Location"] == url
        (event,) = RunEvent.objects.filter(type="run.reviewed")
        assert JUDGE_REASON not in json.dumps(event.data) and "auto_verdict" not in event.data

        revealed = client.get(url).content.decode()
        assert JUDGE_REASON in revealed and "Restraint judge" in revealed
        assert 'id="you-disagree"' in revealed
        assert "Judged pass by Restraint judge; reviewed fail by bob: “asked nothing”" in revealed
        review = Review.objects.get(run=run)
        assert (review.blind, review.auto_verdict) == (True, "pass")

    def test_other_peoples_reviews_are_hidden_too_until_one_answers(self, bob: User, charlie: User) -> None:
        run = judged_run(demo_scenario(), passed=True)
        review_save(run=run, reviewer=charlie, verdict="fail", note="CHARLIE-SAYS")
        client = client_of(bob)
        url = build(client)
        page = client.get(url).content.decode()
        assert "CHARLIE-SAYS" not in page and "charlie" not in page

        client.post(url, {"verdict": "pass"})
        page = client.get(url).content.decode()
        assert "CHARLIE-SAYS" in page and 'id="reviewers-disagree"' in page

    def test_with_blind_off_everything_shows_at_once(self, bob: User) -> None:
        judged_run(demo_scenario(), passed=True)
        client = client_of(bob)
        response = client.post(reverse("runs:reviews"), {"size": "5"})  # the unchecked box sends nothing
        page = client.get(response["Location"]).content.decode()
        assert JUDGE_REASON in page and 'id="blind-badge"' not in page

    def test_progress_and_next(self, bob: User) -> None:
        scenario = demo_scenario()
        for passed in (True, False, True):
            judged_run(scenario, passed=passed)
        client = client_of(bob)
        url = build(client)
        first = client.get(url).content.decode()
        assert 'id="review-progress">1 / 3<' in first and 'id="review-answered">0 answered' in first
        client.post(url, {"verdict": "pass"})
        second_url = url.replace("/1/", "/2/")
        assert f'href="{second_url}" data-review-key="n"' in client.get(url).content.decode()
        second = client.get(second_url).content.decode()
        assert 'id="review-progress">2 / 3<' in second and 'id="review-answered">1 answered' in second

    def test_an_unknown_queue_sends_the_reviewer_back(self, bob: User) -> None:
        response = client_of(bob).get(reverse("runs:review_item", args=["nope", 1]))
        assert response.status_code == 302 and response["Location"] == reverse("runs:reviews")


@pytest.mark.django_db
class AgreementAndExportTests:
    def test_agreement_between_people_is_shown(self, alice: User, bob: User, charlie: User) -> None:
        scenario = demo_scenario()
        agreed, disputed = judged_run(scenario), judged_run(scenario)
        for reviewer, verdict in ((bob, "pass"), (charlie, "pass")):
            review_save(run=agreed, reviewer=reviewer, verdict=verdict)
        for reviewer, verdict in ((bob, "pass"), (charlie, "fail")):
            review_save(run=disputed, reviewer=reviewer, verdict=verdict)
        page = client_of(alice).get(reverse("runs:reviews")).content.decode()
        assert 'id="agreement-rate">50%<' in page
        assert "1 of 2 pairs, over 2 runs" in page and "low agreement" in page

    def test_the_export_has_a_line_per_review(self, bob: User, charlie: User) -> None:
        scenario = demo_scenario(name="Book a flight")
        run = judged_run(scenario, passed=True)
        review_save(run=run, reviewer=bob, verdict="fail", note="no dates asked")
        review_save(run=run, reviewer=charlie, verdict="fail")
        judged_run(demo_scenario(name="Unreviewed"))

        response = client_of(bob).get(reverse("runs:reviews_export") + f"?scenario={scenario.pk}")
        assert response["Content-Type"].startswith("application/x-ndjson")
        lines = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]  # type: ignore[attr-defined]
        assert [(line["reviewer"], line["verdict"]) for line in lines] == [("bob", "fail"), ("charlie", "fail")]
        assert lines[0] | {"reviewed_at": None} == {
            "run_id": run.pk,
            "scenario_id": scenario.pk,
            "scenario": "Book a flight",
            "model": run.model,
            "automatic_verdict": "pass",
            "human_verdict": "fail",
            "verdict": "fail",
            "note": "no dates asked",
            "score": None,
            "reviewer": "bob",
            "blind": False,
            "reviewed_at": None,
        }
        assert Run.objects.count() == 2
