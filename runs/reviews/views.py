"""The review surfaces: the run page's Review panel (its POSTs), the Review page that builds a queue, the queue's
one-run-at-a-time review (blind by default), deleting a review, and the JSONL export."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, QueryDict, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from evalhub.permissions import require_review_delete
from evalhub.scenarios.models import Scenario, Tag
from runs.experiments.models import Experiment
from runs.inspector.story import build_story
from runs.models import Review, Run
from runs.reviews.export import reviews_jsonl_response
from runs.reviews.queue import AUTO_VERDICTS, MAX_SIZE, QueueFilter, queue_build, queue_load
from runs.reviews.rule import reviewer_agreement
from runs.reviews.services import ReviewRefused, review_delete, review_save
from runs.reviews.text import ReviewLine, ScorerLine, verdict_sentence
from scorers.models import Scorer


def review_input(post: QueryDict) -> dict[str, Any]:
    """The form's verdict, note and score; a score that is not a number is refused with what to type."""
    raw = post.get("score", "").strip()
    try:
        score = float(raw) if raw else None
    except ValueError:
        raise ReviewRefused(f"score: “{raw}” is not a number; type one from 0 to 1, or leave it empty.") from None
    return {"verdict": post.get("verdict", ""), "note": post.get("note", ""), "score": score}


def review_context(run: Run, user: Any) -> dict[str, Any]:
    """What the Review panel shows: every review, the user's own, the sentence, agreement between people."""
    reviews = list(run.reviews.select_related("reviewer").order_by("updated_at", "id"))
    scorers = [
        ScorerLine(result.scorer_name, result.passed if result.outcome == "ok" else None, result.gating)
        for result in run.score_results.filter(is_current=True)
    ]
    lines = [ReviewLine(r.reviewer.get_username(), r.verdict, r.note) for r in reviews]
    return {
        "reviews": reviews,
        "my_review": next((r for r in reviews if r.reviewer_id == user.pk), None),
        "verdict_sentence": verdict_sentence(run.auto_verdict, scorers, lines, run.failure_cause) if reviews else "",
        "people_agree": len({r.verdict for r in reviews}) == 1 if len(reviews) > 1 else None,
    }


def next_to_review(run: Run, user: Any) -> int | None:
    """The run page's "next" (key n): the next older judged run the user has not reviewed yet."""
    mine = Review.objects.filter(reviewer_id=user.pk).values("run_id")
    older = Run.objects.filter(pk__lt=run.pk).exclude(auto_verdict="").exclude(pk__in=mine).order_by("-pk")
    return older.values_list("pk", flat=True).first()


@require_POST
def run_review(request: HttpRequest, run_id: int) -> HttpResponse:
    """Save the signed-in user's review of the run (anyone who may see the run may review it; one's own only)."""
    run = get_object_or_404(Run, pk=run_id)
    try:
        review_save(run=run, reviewer=request.user, **review_input(request.POST))  # type: ignore[arg-type]
    except ReviewRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, f"Reviewed run #{run.pk}: {run.verdict}.")
    return redirect(reverse("runs:detail", args=[run.pk]) + "#review")


@require_POST
def review_delete_view(request: HttpRequest, review_id: int) -> HttpResponse:
    review = get_object_or_404(Review.objects.select_related("reviewer"), pk=review_id)
    require_review_delete(request.user, review)
    run = review_delete(review=review)
    messages.success(request, f"Deleted the review by {review.reviewer.get_username()} of run #{run.pk}.")
    return redirect(reverse("runs:detail", args=[run.pk]) + "#review")


@require_http_methods(["GET", "POST"])
def review_home(request: HttpRequest) -> HttpResponse:
    """The Review page: a filter that builds a queue (POST), the export, and how far reviewers agree."""
    query = request.POST if request.method == "POST" else request.GET
    queue_filter = QueueFilter.from_query(query, submitted=request.method == "POST" or "size" in query)
    if request.method == "POST" and not queue_filter.errors:
        queue = queue_build(queue_filter=queue_filter, user=request.user, session=request.session)
        if queue.run_ids:
            return redirect("runs:review_item", token=queue.token, position=1)
        messages.info(request, f"No run to review matches {queue.described}.")
    matched = queue_filter.apply(Run.objects.all(), user=request.user)
    verdicts_by_run: dict[int, list[str]] = {}
    for run_id, verdict in Review.objects.filter(run__in=matched).values_list("run_id", "verdict"):
        verdicts_by_run.setdefault(run_id, []).append(verdict)
    context = {
        "section": "reviews",
        "filter": queue_filter,
        "matched": matched.count(),
        "reviewed": len(verdicts_by_run),
        "agreement": reviewer_agreement(verdicts_by_run.values()),
        "export_query": _export_query(query),
        "experiments": Experiment.objects.order_by("-pk").only("pk", "name", "label")[:100],
        "scenarios": Scenario.objects.order_by("name").only("pk", "name"),
        "scorers": Scorer.objects.order_by("name").only("pk", "name"),
        "tags": Tag.objects.all(),
        "auto_verdicts": AUTO_VERDICTS,
        "max_size": MAX_SIZE,
    }
    return render(request, "runs/reviews/review_home.html", context)


def _export_query(query: QueryDict) -> str:
    kept = QueryDict(mutable=True)
    for name in ("experiment", "tag", "scenario", "scorer", "from", "to", "auto_verdict"):
        value = query.get(name, "")
        if value:
            kept[name] = value
    return kept.urlencode()


@require_http_methods(["GET", "POST"])
def review_item(request: HttpRequest, token: str, position: int) -> HttpResponse:
    """One run of a queue. Blind: the automatic verdict, scores and scorer reasons stay off the page until the
    reviewer has answered; the POST saves their answer and shows the same run again, now with everything."""
    queue = queue_load(session=request.session, token=token)
    if queue is None:
        messages.info(request, "That review queue is gone (queues live in your session); build a new one.")
        return redirect("runs:reviews")
    if not 1 <= position <= len(queue.run_ids):
        return redirect("runs:review_item", token=token, position=min(max(position, 1), len(queue.run_ids)))
    run = Run.objects.select_related("scenario").filter(pk=queue.run_ids[position - 1]).first()
    if run is None:  # deleted since the queue was built: move on rather than stop the sitting
        messages.info(request, f"Run #{queue.run_ids[position - 1]} was deleted; skipped.")
        return _next_or_home(queue.token, position, len(queue.run_ids))
    if request.method == "POST":
        try:
            review_save(run=run, reviewer=request.user, blind=queue.blind, **review_input(request.POST))  # type: ignore[arg-type]
        except ReviewRefused as refused:
            messages.error(request, str(refused))
        return redirect("runs:review_item", token=token, position=position)
    context = review_context(run, request.user)
    answered = context["my_review"] is not None
    hidden = queue.blind and not answered
    story = build_story(
        transcript=run.transcript,
        tool_calls=run.tool_calls,
        all_tool_calls=run.all_tool_calls,
        model_calls=run.model_calls,
    )
    context.update(
        section="reviews",
        run=run,
        queue=queue,
        position=position,
        total=len(queue.run_ids),
        answered_count=Review.objects.filter(run_id__in=queue.run_ids, reviewer_id=request.user.pk).count(),
        hidden=hidden,
        story=story,
        current_results=[] if hidden else list(run.score_results.filter(is_current=True)),
        next_url=reverse("runs:review_item", args=[token, position + 1]) if position < len(queue.run_ids) else "",
        previous_url=reverse("runs:review_item", args=[token, position - 1]) if position > 1 else "",
    )
    if hidden:
        # Other people's verdicts would give the answer away just as much as the scorer's.
        context.update(reviews=[], verdict_sentence="", people_agree=None)
    return render(request, "runs/reviews/review_item.html", context)


def _next_or_home(token: str, position: int, total: int) -> HttpResponse:
    if position < total:
        return redirect("runs:review_item", token=token, position=position + 1)
    return redirect("runs:reviews")


@require_GET
def reviews_export(request: HttpRequest) -> StreamingHttpResponse:
    """Every review of the runs the Review page's filter selects, one JSON object a line."""
    queue_filter = QueueFilter.from_query(request.GET, submitted=False)
    runs = queue_filter.apply(Run.objects.all(), user=request.user)
    return reviews_jsonl_response(Review.objects.filter(run__in=runs))
