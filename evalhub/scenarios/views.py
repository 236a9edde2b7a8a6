from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.db.models import OuterRef, Subquery
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from evalhub.htmx import HtmxHttpRequest
from evalhub.permissions import require_change
from evalhub.scenarios import services
from evalhub.scenarios.expectations_editor import editor_spec, expectations_check
from evalhub.scenarios.forms import ScenarioForm
from evalhub.scenarios.grading import AttachedScorer, Grading, grading_summary
from evalhub.scenarios.models import Scenario, Tag
from evalhub.server_evals.services import SideEffectsUnacknowledged
from evalhub.servers.models import McpServer
from runs.charts import score_history_chart
from runs.costs import with_judge_cost
from runs.events.stream import list_events_query
from runs.heartbeat import runs_reap_stale
from runs.models import Run
from runs.quota import QuotaExceeded
from runs.services import run_start, runs_start_many
from runs.tool_usage.services import scenario_confusion_by_day
from scorers.calibration.services import expectations_calibration
from scorers.models import ScenarioScorer


def _with_last_run(queryset):  # type: ignore[no-untyped-def]
    """Each scenario's latest run, its latest judged run (one with a verdict, which a run that ended in an error
    has too) and its newest run still under way: the last verdict stays in view while a newer run is queued or
    running, and is replaced once that run is judged."""
    runs = Run.objects.filter(scenario=OuterRef("pk")).order_by("-created_at", "-id")
    scored = runs.exclude(verdict="")
    active = runs.filter(status__in=[Run.Status.QUEUED, Run.Status.RUNNING])
    return queryset.annotate(
        last_run_id=Subquery(runs.values("pk")[:1]),
        last_status=Subquery(runs.values("status")[:1]),
        last_run_at=Subquery(runs.values("created_at")[:1]),
        scored_run_id=Subquery(scored.values("pk")[:1]),
        scored_score=Subquery(scored.values("score")[:1]),
        scored_verdict=Subquery(scored.values("verdict")[:1]),
        scored_cause=Subquery(scored.values("failure_cause")[:1]),
        scored_reason=Subquery(scored.values("failure_reason")[:1]),
        active_run_id=Subquery(active.values("pk")[:1]),
        active_status=Subquery(active.values("status")[:1]),
    )


@require_GET
def scenario_list(request: HttpRequest) -> HttpResponse:
    runs_reap_stale()  # each scenario's last run: a dead worker's shows as lost, not running
    scenarios = _with_last_run(Scenario.objects.select_related("server", "provider").prefetch_related("tags"))
    context = {
        "section": "scenarios",
        "scenarios": scenarios,
        "tags": Tag.objects.filter(scenarios__isnull=False).distinct(),
        "has_servers": McpServer.objects.exists(),
        "live_events": list_events_query(),
    }
    return render(request, "evalhub/scenario_list.html", context)


@require_GET
def scenario_last_score(request: HttpRequest, scenario_id: int) -> HttpResponse:
    """The "Last verdict" cell of one scenario, refreshed as the scenario's runs are queued, start and end."""
    runs_reap_stale()
    scenario = get_object_or_404(_with_last_run(Scenario.objects.all()), pk=scenario_id)
    return render(request, "evalhub/_scenario_last_score.html", {"scenario": scenario})


@require_http_methods(["GET", "POST"])
def scenario_create(request: HttpRequest) -> HttpResponse:
    form = ScenarioForm(request.POST or None, initial={"server": McpServer.objects.first()})
    if request.method == "POST" and form.is_valid():
        scenario = form.save(commit=False)
        scenario.created_by = request.user  # type: ignore[assignment]
        scenario.save()
        form.instance = scenario
        form.save()
        _warn_unknown_tools(request, scenario)
        messages.success(request, f"Created scenario “{scenario.name}”.")
        return redirect("scenario_detail", scenario_id=scenario.pk)
    return render(request, "evalhub/scenario_form.html", _form_context(form))


@require_http_methods(["GET", "POST"])
def scenario_edit(request: HttpRequest, scenario_id: int) -> HttpResponse:
    scenario = get_object_or_404(Scenario, pk=scenario_id)
    require_change(request.user, scenario)
    form = ScenarioForm(request.POST or None, instance=scenario)
    if request.method == "POST" and form.is_valid():
        scenario = form.save()
        _warn_unknown_tools(request, scenario)
        messages.success(request, f"Saved scenario “{scenario.name}”.")
        return redirect("scenario_detail", scenario_id=scenario.pk)
    return render(request, "evalhub/scenario_form.html", _form_context(form, scenario=scenario))


def _form_context(form: ScenarioForm, *, scenario: Scenario | None = None) -> dict[str, Any]:
    return {"section": "scenarios", "form": form, "scenario": scenario, "expectations_spec": editor_spec()}


@require_POST
def scenario_expectations_check(request: HttpRequest) -> JsonResponse:
    """The editor's live check of an unsaved list: `{"expectations": [...]}` → each row's sentence and errors."""
    try:
        body = json.loads(request.body)
    except ValueError:
        return JsonResponse({"rows": [], "errors": ["The request body is not JSON."]}, status=400)
    data = body.get("expectations") if isinstance(body, dict) else None
    return JsonResponse(expectations_check(data))


def _warn_unknown_tools(request: HttpRequest, scenario: Scenario) -> None:
    unknown = scenario.unknown_expected_tools()
    if unknown:
        messages.warning(
            request,
            f"{scenario.server.name} does not offer {', '.join(unknown)} (as of its last inspection). "
            "The scenario is saved; check the names or inspect the server again.",
        )


@require_GET
def scenario_detail(request: HtmxHttpRequest, scenario_id: int) -> HttpResponse:
    scenario = get_object_or_404(Scenario.objects.select_related("server", "provider"), pk=scenario_id)
    runs_reap_stale()  # a dead worker's runs show as lost, even when no worker is alive to reap them
    recent = list(with_judge_cost(scenario.runs.order_by("-created_at", "-id"))[:30])
    context = {
        "section": "scenarios",
        "scenario": scenario,
        "recent_runs": recent[:10],
        "chart": score_history_chart(recent[::-1], threshold=scenario.pass_threshold),
        "live_events": list_events_query(scenario_id=scenario.pk),
    }
    template = "evalhub/scenario_detail.html"
    if request.htmx:
        return render(request, template + "#scenario-runs", context)
    context["unknown_tools"] = scenario.unknown_expected_tools()
    context["grading"] = _grading(scenario)
    # How the expectations, as a whole, agree with people's reviews of this scenario's runs.
    context["expectations_calibration"] = expectations_calibration(scenario=scenario)
    if scenario.expected_tools:
        context["confusion_by_day"] = scenario_confusion_by_day(scenario)
    return render(request, template, context)


def _grading(scenario: Scenario) -> Grading:
    attachments = ScenarioScorer.objects.filter(scenario=scenario).select_related("scorer").order_by("scorer__name")
    return grading_summary(
        expectations=scenario.expectations,
        scorers=[
            AttachedScorer(
                scorer_id=a.scorer_id,
                name=a.scorer.name,
                kind=a.scorer.kind,
                advisory=a.advisory,
                threshold=a.threshold,
            )
            for a in attachments
        ],
        expected_tools=scenario.expected_tools,
        tool_errors_expected=scenario.tool_errors_expected,
        threshold=scenario.pass_threshold,
    )


@require_POST
def scenario_duplicate(request: HttpRequest, scenario_id: int) -> HttpResponse:
    scenario = get_object_or_404(Scenario, pk=scenario_id)
    copy = services.scenario_duplicate(scenario=scenario, user=request.user)
    copied = services.scenario_copied_parts(copy)
    messages.success(request, f"Duplicated as “{copy.name}” with {copied}. Edit it below.")
    return redirect("scenario_edit", scenario_id=copy.pk)


@require_http_methods(["GET", "POST"])
def scenario_delete(request: HttpRequest, scenario_id: int) -> HttpResponse:
    scenario = get_object_or_404(Scenario, pk=scenario_id)
    require_change(request.user, scenario)
    if request.method == "POST":
        name = scenario.name
        scenario.delete()
        messages.success(request, f"Deleted scenario “{name}” and its runs.")
        return redirect("scenario_list")
    context = {"section": "scenarios", "scenario": scenario, "run_count": scenario.runs.count()}
    return render(request, "evalhub/scenario_confirm_delete.html", context)


@require_POST
def scenario_run(request: HttpRequest, scenario_id: int) -> HttpResponse:
    scenario = get_object_or_404(Scenario, pk=scenario_id)
    try:
        run = run_start(scenario=scenario, user=request.user)
    except (QuotaExceeded, SideEffectsUnacknowledged) as exc:
        messages.error(request, str(exc))
        return redirect(request.POST.get("next") or "scenario_list")
    # No flash message: the run page's live status bar says the run is queued and goes away when it finishes,
    # where a "Queued run #N" banner would stay on the finished page.
    return redirect("runs:detail", run_id=run.pk)


@require_POST
def scenarios_run_bulk(request: HttpRequest) -> HttpResponse:
    tag = request.POST.get("tag", "")
    if "by_tag" in request.POST:
        if not tag:
            messages.warning(request, "Choose a tag to run all its scenarios.")
            return redirect("scenario_list")
        scenarios = Scenario.objects.filter(tags__name=tag).select_related("server", "provider")
    else:
        scenarios = Scenario.objects.filter(pk__in=request.POST.getlist("scenario_ids")).select_related(
            "server", "provider"
        )
    if not scenarios:
        messages.warning(request, "Select at least one scenario, or choose a tag, to run.")
        return redirect("scenario_list")
    result = runs_start_many(scenarios=scenarios, user=request.user)
    (messages.warning if result.refused else messages.success)(request, result.summary())
    return redirect("runs:list")
