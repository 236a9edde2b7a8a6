from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from evalhub.htmx import HtmxHttpRequest
from evalhub.models import Scenario, Tag
from runs.filters import RunFilters
from runs.heartbeat import runs_reap_stale
from runs.models import Run
from runs.services import run_cancel

PAGE_SIZE = 50


@require_GET
def run_list(request: HtmxHttpRequest) -> HttpResponse:
    runs_reap_stale()
    filters = RunFilters.from_query(request.GET)
    runs = filters.apply(Run.objects.select_related("scenario").only(*Run.LIST_FIELDS)).order_by("-created_at", "-id")
    page = Paginator(runs, PAGE_SIZE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "section": "runs",
        "page": page,
        "filters": filters,
        "query": query.urlencode(),
        "polling": any(not run.is_finished for run in page),
        "has_runs": filters.active or Run.objects.exists(),
    }
    template = "runs/run_list.html"
    if request.htmx:
        template += "#runs-table"
    else:
        context.update(
            scenarios=Scenario.objects.order_by("name").only("pk", "name"),
            statuses=Run.Status.choices,
            models=Run.objects.order_by("model").values_list("model", flat=True).distinct(),
            tags=Tag.objects.all(),
        )
    return render(request, template, context)


@require_GET
def run_detail(request: HtmxHttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(
        Run.objects.select_related("scenario", "server", "provider", "tool_snapshot", "started_by"), pk=run_id
    )
    if run.status == Run.Status.RUNNING:
        runs_reap_stale()
        run.refresh_from_db()
    context = {"section": "runs", "run": run, "score_results": run.score_results.all()}
    template = "runs/run_detail.html"
    if request.htmx:
        template += "#run-body"
    return render(request, template, context)


@require_POST
def run_cancel_view(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(Run, pk=run_id)
    if run.is_finished:
        messages.info(request, f"Run #{run.pk} had already finished.")
    else:
        run = run_cancel(run=run)
        if run.status == Run.Status.CANCELLED:
            messages.success(request, f"Cancelled run #{run.pk}.")
        else:
            messages.success(request, f"Cancelling run #{run.pk}: it stops after its current step.")
    return redirect("runs:detail", run_id=run.pk)
