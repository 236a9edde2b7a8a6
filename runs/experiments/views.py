"""Experiment pages: the list, the new-experiment form, the matrix (live while it runs), cancel, pin, compare."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from evalhub.htmx import HtmxHttpRequest
from evalhub.ids import parse_id
from evalhub.permissions import can_pin, require_change, require_pin
from evalhub.servers.models import McpServer
from runs.experiments.advisory import advisory_judges, advisory_judges_of, advisory_text
from runs.experiments.compare import experiment_compare
from runs.experiments.forms import ExperimentForm
from runs.experiments.matrix import build_matrix
from runs.experiments.models import BaselinePin, Experiment
from runs.experiments.services import (
    ExperimentInvalid,
    baseline_pin,
    experiment_cancel,
    experiment_start,
    pin_of,
    pinned_baseline,
    scenarios_select,
    with_fault_profiles,
    with_modes,
)
from runs.heartbeat import runs_reap_stale
from runs.quota import QuotaExceeded


@require_GET
def experiment_list(request: HttpRequest) -> HttpResponse:
    experiments = Experiment.objects.select_related("baseline").order_by("-created_at", "-id")[:200]
    pins = dict(BaselinePin.objects.values_list("experiment_id", "tag"))
    return render(
        request,
        "experiments/experiment_list.html",
        {"section": "experiments", "experiments": experiments, "pins": pins},
    )


@require_http_methods(["GET", "POST"])
def experiment_create(request: HttpRequest) -> HttpResponse:
    initial: dict[str, object] = {"tag": request.GET.get("tag", "")}
    if (server_id := parse_id(request.GET.get("variant_server", ""))) is not None:
        initial["variant_server"] = McpServer.objects.filter(pk=server_id).first()
    form = ExperimentForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            scenarios = scenarios_select(tag=data["tag"], scenario_ids=[s.pk for s in data["scenarios"]])
            experiment = experiment_start(
                name=data["name"],
                label=data["label"],
                tag=data["tag"],
                scenarios=scenarios,
                models=with_fault_profiles(with_modes(data["models"], data["modes"]), data["fault_profiles"]),
                trials=data["trials"],
                rerun_inconclusive=data["rerun_inconclusive"],
                judges=data["judges"],
                variants=data["variants"],
                baseline=data["baseline"] or (pin_of(data["tag"]) if data["tag"] else None),
                user=request.user,
            )
        except ExperimentInvalid as exc:
            form.add_error(exc.field if exc.field in form.fields else None, str(exc))
        except QuotaExceeded as exc:
            # Nothing was started: the form keeps every choice so the user can lower the trials or come back.
            form.add_error(None, str(exc))
        else:
            messages.success(request, f"Queued {experiment.total_runs} runs.")
            return redirect("experiments:detail", experiment_id=experiment.pk)
    return render(request, "experiments/experiment_form.html", {"section": "experiments", "form": form})


@require_GET
def experiment_detail(request: HtmxHttpRequest, experiment_id: int) -> HttpResponse:
    experiment = get_object_or_404(
        Experiment.objects.select_related("baseline", "created_by", "baseline_pinned_by"), pk=experiment_id
    )
    if not experiment.is_finished and runs_reap_stale():
        experiment.refresh_from_db()
    matrix = build_matrix(experiment, list(experiment.cells.all()))
    context = {
        "section": "experiments",
        "experiment": experiment,
        "matrix": matrix,
        "rows": matrix.display_rows(reverse("runs:list")),
        "chart": matrix.chart(),
        "pin": pin_of(experiment.tag) if experiment.tag else None,
        "can_pin": can_pin(request.user, experiment),
        "advisory": advisory_text(advisory_judges(experiment=experiment)),
    }
    template = "experiments/experiment_detail.html"
    if request.htmx:
        template += "#experiment-live"
    return render(request, template, context)


@require_POST
def experiment_cancel_view(request: HttpRequest, experiment_id: int) -> HttpResponse:
    experiment = get_object_or_404(Experiment.objects.select_related("created_by"), pk=experiment_id)
    require_change(request.user, experiment)
    if experiment.is_finished:
        messages.info(request, "This experiment had already finished.")
    else:
        experiment = experiment_cancel(experiment=experiment)
        left = experiment.total_runs - experiment.finished_runs
        messages.success(
            request,
            f"Cancelled: {experiment.finished_runs} finished runs are kept"
            + (f"; {left} running stop in a moment, keeping what they recorded." if left else "."),
        )
    return redirect("experiments:detail", experiment_id=experiment.pk)


@require_POST
def experiment_pin(request: HttpRequest, experiment_id: int) -> HttpResponse:
    experiment = get_object_or_404(Experiment.objects.select_related("created_by"), pk=experiment_id)
    require_pin(request.user, experiment)
    try:
        baseline_pin(experiment=experiment, user=request.user)
    except ExperimentInvalid as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Pinned as the baseline of #{experiment.tag}.")
    return redirect("experiments:detail", experiment_id=experiment.pk)


@require_GET
def experiment_compare_view(request: HttpRequest, experiment_id: int) -> HttpResponse:
    candidate = get_object_or_404(Experiment, pk=experiment_id)
    wanted = request.GET.get("baseline", "")
    baseline: Experiment | None
    if (baseline_id := parse_id(wanted)) is not None:
        baseline = get_object_or_404(Experiment, pk=baseline_id)
    else:
        baseline = candidate.baseline or (pinned_baseline(candidate.tag) if candidate.tag else None)
    choices = Experiment.objects.exclude(pk=candidate.pk).order_by("-created_at").only("pk", "name", "label")[:100]
    context = {"section": "experiments", "candidate": candidate, "baseline": baseline, "choices": choices}
    advisory = advisory_judges_of(experiments=[candidate, *([baseline] if baseline else [])])
    context["candidate_advisory"] = advisory_text(advisory.get(candidate.pk, {}))
    if baseline is not None:
        context["baseline_advisory"] = advisory_text(advisory.get(baseline.pk, {}))
        comparison = experiment_compare(candidate=candidate, baseline=baseline)
        context["comparison"] = comparison
        context["rows"] = comparison.html_rows()
    return render(request, "experiments/experiment_compare.html", context)
