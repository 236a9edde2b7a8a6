"""The run page's Review panel and its POSTs: anyone signed in reviews, edits their own, staff delete any."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from runs.models import Review
from runs.reviews.services import review_save
from tests.runs.reviews.helpers import demo_scenario, judged_run


def client_of(user: User, **kwargs: object) -> Client:
    client = Client(**kwargs)  # type: ignore[arg-type]
    client.force_login(user)
    return client


@pytest.mark.django_db
class RunPageReviewTests:
    def test_the_panel_offers_pass_fail_note_and_score_with_their_keys(self, bob: User) -> None:
        run = judged_run(demo_scenario())
        page = client_of(bob).get(reverse("runs:detail", args=[run.pk])).content.decode()
        assert 'id="review"' in page
        assert 'data-review-key="p"' in page and 'data-review-key="f"' in page
        assert 'name="note"' in page and 'name="score"' in page
        assert f'action="{reverse("runs:review", args=[run.pk])}"' in page

    def test_a_member_reviews_and_the_page_says_both_verdicts(self, bob: User, charlie: User) -> None:
        run = judged_run(demo_scenario(), passed=True)
        response = client_of(charlie).post(
            reverse("runs:review", args=[run.pk]), {"verdict": "fail", "note": "asked nothing before booking"}
        )
        assert response.status_code == 302 and response["Location"].endswith(f"/runs/{run.pk}/#review")

        page = client_of(bob).get(reverse("runs:detail", args=[run.pk])).content.decode()
        assert "Judged pass by Restraint judge; reviewed fail by charlie: “asked nothing before booking”" in page
        assert 'id="human-verdict">fail<' in page and 'id="auto-verdict">pass<' in page
        assert 'data-verdict="fail"' in page  # the badge at the top is the human verdict

    def test_the_note_is_escaped(self, bob: User) -> None:
        run = judged_run(demo_scenario())
        client = client_of(bob)
        client.post(reverse("runs:review", args=[run.pk]), {"verdict": "fail", "note": "<script>alert(1)</script>"})
        page = client.get(reverse("runs:detail", args=[run.pk])).content.decode()
        assert "<script>alert(1)</script>" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page

    def test_posting_again_changes_ones_own_review(self, bob: User) -> None:
        run = judged_run(demo_scenario())
        client = client_of(bob)
        client.post(reverse("runs:review", args=[run.pk]), {"verdict": "fail", "note": "no"})
        client.post(reverse("runs:review", args=[run.pk]), {"verdict": "pass", "note": "yes", "score": "0.9"})
        (review,) = Review.objects.all()
        assert (review.reviewer, review.verdict, review.note, review.score) == (bob, "pass", "yes", 0.9)

    def test_a_bad_score_is_refused_with_what_to_type(self, bob: User) -> None:
        run = judged_run(demo_scenario())
        client = client_of(bob)
        response = client.post(reverse("runs:review", args=[run.pk]), {"verdict": "pass", "score": "lots"}, follow=True)
        assert "score: “lots” is not a number; type one from 0 to 1, or leave it empty." in response.content.decode()
        assert not Review.objects.exists()

    def test_it_needs_csrf_and_a_login(self, bob: User) -> None:
        run = judged_run(demo_scenario())
        url = reverse("runs:review", args=[run.pk])
        assert client_of(bob, enforce_csrf_checks=True).post(url, {"verdict": "pass"}).status_code == 403
        response = Client().post(url, {"verdict": "pass"})
        assert response.status_code == 302 and "/login" in response["Location"]
        assert client_of(bob).get(url).status_code == 405
        assert not Review.objects.exists()


@pytest.mark.django_db
class ReviewDeleteTests:
    def test_the_author_deletes_their_review(self, bob: User) -> None:
        run = judged_run(demo_scenario(), passed=True)
        review = review_save(run=run, reviewer=bob, verdict="fail")
        response = client_of(bob).post(reverse("runs:review_delete", args=[review.pk]))
        assert response.status_code == 302
        assert not Review.objects.exists()
        run.refresh_from_db()
        assert (run.verdict, run.human_verdict) == ("pass", "")

    def test_someone_else_may_not_and_is_told_who_may(self, bob: User, charlie: User) -> None:
        run = judged_run(demo_scenario())
        review = review_save(run=run, reviewer=bob, verdict="fail")
        page = client_of(charlie).get(reverse("runs:detail", args=[run.pk])).content.decode()
        assert reverse("runs:review_delete", args=[review.pk]) not in page

        response = client_of(charlie).post(reverse("runs:review_delete", args=[review.pk]))
        assert response.status_code == 403
        assert "Only bob (who wrote it) or staff can delete review" in response.content.decode()
        assert Review.objects.filter(pk=review.pk).exists()

    def test_staff_delete_anyones(self, alice: User, bob: User) -> None:
        run = judged_run(demo_scenario())
        review = review_save(run=run, reviewer=bob, verdict="fail")
        page = client_of(alice).get(reverse("runs:detail", args=[run.pk])).content.decode()
        assert reverse("runs:review_delete", args=[review.pk]) in page
        assert client_of(alice).post(reverse("runs:review_delete", args=[review.pk])).status_code == 302
        assert not Review.objects.exists()

    def test_two_reviewers_who_disagree_are_shown(self, bob: User, charlie: User) -> None:
        run = judged_run(demo_scenario())
        review_save(run=run, reviewer=bob, verdict="pass")
        review_save(run=run, reviewer=charlie, verdict="fail")
        page = client_of(bob).get(reverse("runs:detail", args=[run.pk])).content.decode()
        assert 'id="reviewers-disagree"' in page


@pytest.mark.django_db
class RunsListTests:
    def test_a_reviewed_run_is_marked_in_the_runs_list(self, bob: User) -> None:
        reviewed, other = judged_run(demo_scenario(), passed=True), judged_run(demo_scenario(name="Other"), passed=True)
        review_save(run=reviewed, reviewer=bob, verdict="fail")
        page = client_of(bob).get(reverse("runs:list")).content.decode()
        row = page.split(f'id="run-{reviewed.pk}"')[1].split("</tr>")[0]
        assert 'data-verdict="fail"' in row and "reviewed-mark" in row and "automatic one was pass" in row
        assert "reviewed-mark" not in page.split(f'id="run-{other.pk}"')[1].split("</tr>")[0]
