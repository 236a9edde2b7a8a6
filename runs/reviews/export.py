"""Reviews as JSONL: one line per review, what a person said beside what the scorers said. For training and
calibrating judges elsewhere; suite exports (evalhub.suites) carry scenarios and scorers, never reviews."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from django.db.models import QuerySet
from django.http import StreamingHttpResponse

from runs.models import Review


def review_line(review: Review) -> dict[str, Any]:
    run = review.run
    return {
        "run_id": run.pk,
        "scenario_id": run.scenario_id,
        "scenario": run.scenario.name,
        "model": run.model,
        "automatic_verdict": run.auto_verdict,
        # The run's human verdict (all its reviewers), and this reviewer's own answer.
        "human_verdict": run.human_verdict or None,
        "verdict": review.verdict,
        "note": review.note,
        "score": review.score,
        "reviewer": review.reviewer.get_username(),
        "blind": review.blind,
        "reviewed_at": review.updated_at.isoformat(),
    }


def reviews_jsonl(reviews: QuerySet[Review]) -> Iterator[str]:
    rows = reviews.select_related("run__scenario", "reviewer").order_by("run_id", "updated_at", "id")
    for review in rows.iterator(chunk_size=500):
        yield json.dumps(review_line(review), ensure_ascii=False) + "\n"


def reviews_jsonl_response(reviews: QuerySet[Review]) -> StreamingHttpResponse:
    response = StreamingHttpResponse(reviews_jsonl(reviews), content_type="application/x-ndjson; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="evalhub-reviews.jsonl"'
    return response
