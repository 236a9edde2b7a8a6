"""/runs/{id}/reviews and /reviews: review a run, delete one's review, export reviews as JSONL.

Scopes as the other run endpoints: reviewing and deleting need evaluate:write, the export evaluate:export. The
review is always the caller's own (an API key acts as its owner)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest, StreamingHttpResponse
from ninja import Field, Query, Router, Schema
from ninja.responses import Status

from evalhub.api.common import EXPORT, WRITE, Id, acting_user, get_or_404, invalid, not_found, responses
from evalhub.api_keys.auth import auth_for
from evalhub.permissions import require_review_delete
from runs.models import Review, Run
from runs.reports.records import review_record
from runs.reviews.export import reviews_jsonl_response
from runs.reviews.services import ReviewRefused, review_delete, review_save

router = Router()
export_router = Router()


class ReviewIn(Schema):
    verdict: Literal["pass", "fail"]
    note: str = Field("", max_length=2000)
    score: float | None = Field(None, ge=0.0, le=1.0, description="The score the run should have had, 0 to 1.")


class ReviewOut(Schema):
    id: int
    reviewer: str
    verdict: str
    note: str
    score: float | None
    created_at: datetime
    updated_at: datetime


class ReviewedOut(Schema):
    review: ReviewOut
    run_id: int
    verdict: str = Field(description="The run's verdict now: the human verdict when people reviewed it.")
    auto_verdict: str
    human_verdict: str | None


def _reviewed(run: Run, review: Review | None) -> dict[str, Any]:
    return {
        "review": review_record(review) if review else None,
        "run_id": run.pk,
        "verdict": run.verdict,
        "auto_verdict": run.auto_verdict,
        "human_verdict": run.human_verdict or None,
    }


@router.post(
    "/{int:run_id}/reviews",
    response=responses({201: ReviewedOut}, 404),
    auth=auth_for(WRITE),
    summary="Review a run",
)
def review_run(request: HttpRequest, run_id: int, payload: ReviewIn) -> Status:
    """Your pass or fail on the run (with a note and the score it should have had); sending again changes your
    review. The run's verdict becomes the human verdict: most reviewers' answer, a tie going to the latest."""
    run = get_or_404(Run.objects.all(), "Run", run_id)
    try:
        review = review_save(
            run=run,
            reviewer=acting_user(request),  # type: ignore[arg-type]
            verdict=payload.verdict,
            note=payload.note,
            score=payload.score,
        )
    except ReviewRefused as refused:
        raise invalid(str(refused), field=refused.field) from None
    return Status(201, _reviewed(run, review))


class ReviewDeletedOut(Schema):
    run_id: int
    verdict: str
    auto_verdict: str
    human_verdict: str | None


@router.delete(
    "/{int:run_id}/reviews/{int:review_id}",
    response=responses({200: ReviewDeletedOut}, 404),
    auth=auth_for(WRITE),
    summary="Delete a review",
)
def delete_review(request: HttpRequest, run_id: int, review_id: int) -> dict[str, Any]:
    """Your own review, or anyone's when you are staff; the run's verdict follows the reviews left."""
    run = get_or_404(Run.objects.all(), "Run", run_id)
    review = run.reviews.select_related("reviewer").filter(pk=review_id).first()
    if review is None:
        raise not_found("Review", review_id)
    require_review_delete(acting_user(request), review)
    run = review_delete(review=review)
    return {k: v for k, v in _reviewed(run, None).items() if k != "review"}


class ExportParams(Schema):
    format: Literal["jsonl"] = "jsonl"
    run_id: Id | None = Field(None, description="Only this run's reviews.")
    experiment_id: Id | None = None
    scenario_id: Id | None = None
    reviewer: str = Field("", description="Only this user's reviews (a username).")


@export_router.get(
    "",
    response=responses({200: str}),
    auth=auth_for(EXPORT),
    openapi_extra={"responses": {200: {"description": "One review a line.", "content": {"application/x-ndjson": {}}}}},
    summary="Export reviews as JSONL",
)
def export_reviews(request: HttpRequest, params: Query[ExportParams]) -> StreamingHttpResponse:
    """Each review as one JSON object a line: run id, scenario, model, automatic verdict, human verdict, the
    reviewer's verdict, note, score and name."""
    reviews = Review.objects.all()
    if params.run_id is not None:
        reviews = reviews.filter(run_id=params.run_id)
    if params.experiment_id is not None:
        reviews = reviews.filter(run__experiment_id=params.experiment_id)
    if params.scenario_id is not None:
        reviews = reviews.filter(run__scenario_id=params.scenario_id)
    if params.reviewer:
        reviews = reviews.filter(reviewer__username=params.reviewer)
    return reviews_jsonl_response(reviews)
