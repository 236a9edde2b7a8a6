from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.paginator import Page, Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from evalhub.htmx import HtmxHttpRequest
from evalhub.ids import parse_id
from evalhub.permissions import require_change
from evalhub.scenarios.models import Scenario, Tag
from runs.costs import with_judge_cost
from runs.events.stream import list_events_query
from runs.fault_injection.results import run_fault_timeline
from runs.filters import RunFilters, models_used
from runs.heartbeat import runs_reap_stale
from runs.inspector.story import build_story, live_clock, timeline
from runs.models import Cassette, Run, ScoreResult
from runs.queue_estimate import BASIS as QUEUE_BASIS
from runs.queue_estimate import queue_estimate
from runs.reviews.views import next_to_review, review_context
from runs.services import run_cancel, runs_rescore
from runs.verdict import CAUSES
from runs.verdict.rule import VERDICTS
from scorers.calibration.services import scorer_summaries
from scorers.models import Scorer

PAGE_SIZE = 50


@require_GET
def run_list(request: HtmxHttpRequest) -> HttpResponse:
    runs_reap_stale()
    filters = RunFilters.from_query(request.GET)
    order = ("-created_at", "-id")
    # Paginate ids, then read only that page's rows (one query): the offset is walked in the runs_list indexes
    # alone, not through heap rows of ~2 KB each. A page nearer the end is counted from the end, so no page walks
    # more than half the index: with 100,000 runs the last page costs about what the middle one does.
    ids = filters.apply(Run.objects.all()).order_by(*order).values_list("pk", flat=True)
    paginator = Paginator(ids, PAGE_SIZE)
    page: Page[Any] = paginator.get_page(request.GET.get("page"))
    bottom = (page.number - 1) * PAGE_SIZE
    top = min(bottom + PAGE_SIZE, paginator.count)
    page_ids = (
        ids.reverse()[paginator.count - top : paginator.count - bottom]
        if bottom > paginator.count - top
        else ids[bottom:top]
    )
    page.object_list = with_judge_cost(
        Run.objects.filter(pk__in=page_ids).select_related("scenario").only(*Run.LIST_FIELDS).order_by(*order)
    )
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "section": "runs",
        "page": page,
        "filters": filters,
        "query": query.urlencode(),
        # Page 1 shows new runs as they come; a later page follows only while one of its runs is under way.
        "live_events": list_events_query(scenario_id=parse_id(filters.scenario))
        if page.number == 1 or any(not run.is_finished for run in page)
        else "",
        "has_runs": filters.active or page.paginator.count > 0,
    }
    template = "runs/run_list.html"
    if request.htmx:
        template += "#runs-table"
    else:
        context.update(
            scenarios=Scenario.objects.order_by("name").only("pk", "name"),
            statuses=Run.Status.choices,
            verdicts=VERDICTS,
            causes=CAUSES,
            models=models_used(),
            tags=Tag.objects.all(),
        )
    return render(request, template, context)


def _show_judge_calibration(results: list[ScoreResult]) -> None:
    """Beside each current judge result, how far that judge (as it is now) agrees with people's reviews: whether
    its verdict is one to trust, and whether it may gate runs that trust only calibrated judges."""
    judge_ids = {r.scorer_id for r in results if r.is_current and r.scorer_kind == "judge" and r.scorer_id}
    calibrations = scorer_summaries(scorers=list(Scorer.objects.filter(pk__in=judge_ids)))
    for result in results:
        shown = calibrations.get(result.scorer_id or 0) if result.is_current else None
        result.calibration = shown  # type: ignore[attr-defined]


@require_GET
def run_detail(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    runs = Run.objects.select_related("scenario", "server", "provider", "tool_snapshot", "started_by")
    run = get_object_or_404(with_judge_cost(runs), pk=run_id)
    if run.status == Run.Status.RUNNING:
        runs_reap_stale()
        run.refresh_from_db()
    results = list(run.score_results.order_by("-is_current", "-created_at", "id"))
    _show_judge_calibration(results)
    story = build_story(
        transcript=run.transcript,
        tool_calls=run.tool_calls,
        all_tool_calls=run.all_tool_calls,
        model_calls=run.model_calls,
    )
    scoring_ms = sum(result.duration_ms for result in results if result.is_current)
    live = None
    if run.status == Run.Status.RUNNING:
        live = live_clock(
            started_at=run.started_at, phase=run.phase, phase_started_at=run.phase_started_at, now=timezone.now()
        )
    context = {
        "section": "runs",
        "run": run,
        "score_results": results,
        "current_results": [result for result in results if result.is_current],
        "earlier_results": [result for result in results if not result.is_current],
        "story": story,
        "timeline": timeline(
            story=story, duration_ms=run.duration_ms, scoring_ms=scoring_ms, server_start=run.server_start, live=live
        ),
        "fault_timeline": run_fault_timeline(run),
        "queue": queue_estimate(run),
        "cassette": Cassette.objects.filter(run_id=run.pk).defer("data").first(),
        "queue_basis": QUEUE_BASIS,
    }
    context.update(review_context(run, request.user))
    context["next_to_review"] = next_to_review(run, request.user)
    template = "runs/run_detail.html"
    if request.htmx:
        template += "#run-body"
    return render(request, template, context)


@require_POST
def run_cancel_view(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(Run, pk=run_id)
    require_change(request.user, run)
    if run.is_finished:
        messages.info(request, f"Run #{run.pk} had already finished.")
    else:
        run = run_cancel(run=run)
        if run.status == Run.Status.CANCELLED:
            messages.success(request, f"Cancelled run #{run.pk}.")
        else:
            messages.success(request, f"Cancelling run #{run.pk}: it stops in a moment, keeping what it recorded.")
    return redirect("runs:detail", run_id=run.pk)


@require_POST
def run_rescore(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(Run, pk=run_id, status=Run.Status.DONE)
    require_change(request.user, run)
    # No flash message: the run page's own "Re-scoring" bar says so, and goes away when the verdict is in.
    runs_rescore(run_ids=[run.pk])
    return redirect("runs:detail", run_id=run.pk)


@require_POST
def scenario_rescore(request: HttpRequest, scenario_id: int) -> HttpResponse:
    scenario = get_object_or_404(Scenario, pk=scenario_id)
    require_change(request.user, scenario)
    count = runs_rescore(run_ids=list(scenario.runs.filter(status=Run.Status.DONE).values_list("pk", flat=True)))
    messages.success(request, f"Re-scoring {count} finished run{'s' if count != 1 else ''} of “{scenario.name}”.")
    return redirect("scenario_detail", scenario_id=scenario.pk)
