"""Saving and deleting reviews; each re-decides the run's verdict (runs.run_verdict) and refreshes its experiment.

Who may do what is evalhub.permissions' (`review_refusal`, `review_delete_refusal`): the views and the API check
it before calling these.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from runs.events import publish as events
from runs.experiments.metrics import cells_refresh
from runs.models import Review, Run
from runs.reviews.rule import Vote, human_verdict
from runs.run_verdict import VERDICT_FIELDS, apply_verdict

NOTE_MAX = 2000


class ReviewRefused(Exception):
    """What was sent cannot be a review (a verdict other than pass/fail, a score outside 0..1, a run not judged
    yet): the message names the field and what to send instead."""

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field


def review_check(*, run: Run, verdict: str, note: str, score: float | None) -> None:
    if verdict not in Review.Verdict.values:
        raise ReviewRefused(f"verdict: “{verdict}” is not a verdict; send “pass” or “fail”.", field="verdict")
    if score is not None and not 0.0 <= score <= 1.0:
        raise ReviewRefused(f"score: {score} is outside 0..1; send a number from 0 to 1, or none.", field="score")
    if len(note) > NOTE_MAX:
        raise ReviewRefused(f"note: {len(note)} characters; keep it to {NOTE_MAX}.", field="note")
    if not run.auto_verdict:
        raise ReviewRefused(
            f"Run #{run.pk} has no verdict yet ({run.status}): review it once it has finished and been scored.",
            field="run",
        )


def review_save(
    *,
    run: Run,
    reviewer: AbstractBaseUser,
    verdict: str,
    note: str = "",
    score: float | None = None,
    blind: bool = False,
) -> Review:
    """The reviewer's review of `run`, created or changed (one per person and run), and the run's verdict again."""
    note = note.strip()
    review_check(run=run, verdict=verdict, note=note, score=score)
    with transaction.atomic():
        locked = Run.objects.select_for_update().get(pk=run.pk)
        review, _ = Review.objects.update_or_create(
            run=locked,
            reviewer=reviewer,
            defaults={
                "verdict": verdict,
                "note": note,
                "score": score,
                "auto_verdict": locked.auto_verdict,
                "blind": blind,
            },
        )
        _decide(locked)
    run.refresh_from_db()
    return review


def review_delete(*, review: Review) -> Run:
    """Remove one review; the run's verdict follows the reviews left (the automatic one when none are)."""
    with transaction.atomic():
        locked = Run.objects.select_for_update().get(pk=review.run_id)
        review.delete()
        _decide(locked)
    return locked


def _decide(run: Run) -> None:
    """Inside the run's lock: the human verdict from its reviews, then the verdict rule again with it."""
    reviews = list(run.reviews.values_list("verdict", "updated_at"))
    run.human_verdict = human_verdict(Vote(verdict, at) for verdict, at in reviews)
    apply_verdict(run, list(run.score_results.filter(is_current=True)))
    run.save(update_fields=["human_verdict", *VERDICT_FIELDS])
    events.run_reviewed(run, reviews=len(reviews))
    transaction.on_commit(lambda: cells_refresh(run_ids=[run.pk]))
