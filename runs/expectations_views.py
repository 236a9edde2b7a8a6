"""A run's "Save as expectations": expectations proposed from what the run did, pruned by the user, saved onto its
scenario (and, by default, the run re-scored with them)."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from evalhub.permissions import require_change
from evalhub.scenarios.services import scenario_add_expectations
from runs.models import Run
from runs.scoring import run_record
from runs.services import runs_rescore
from scorers.expectations import InvalidExpectations, describe, propose_expectations


def _proposals(run: Run) -> list[dict[str, Any]]:
    existing = run.scenario.expectations
    return [
        {"index": index, "expectation": proposal, "label": describe(proposal), "exists": proposal in existing}
        for index, proposal in enumerate(propose_expectations(run_record(run)))
    ]


@require_http_methods(["GET", "POST"])
def run_save_expectations(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(Run.objects.select_related("scenario"), pk=run_id)
    require_change(request.user, run.scenario)  # it writes to the scenario: the scenario's rule applies
    if not run.is_finished:
        messages.info(request, f"Run #{run.pk} is still {run.status}: save expectations from it once it finishes.")
        return redirect("runs:detail", run_id=run.pk)
    proposals = _proposals(run)
    context: dict[str, Any] = {
        "section": "runs",
        "run": run,
        "proposals": proposals,
        "replace": False,
        "rescore": True,
        "chosen": None,
    }
    if request.method == "POST":
        chosen = set(request.POST.getlist("selected"))
        selected = [p["expectation"] for p in proposals if str(p["index"]) in chosen]
        replace = request.POST.get("mode") == "replace"
        context.update(replace=replace, rescore="rescore" in request.POST, chosen=chosen)
        if not selected:
            context["error"] = "Select at least one expectation to save."
            return render(request, "runs/run_save_expectations.html", context, status=400)
        try:
            scenario = scenario_add_expectations(scenario=run.scenario, expectations=selected, replace=replace)
        except InvalidExpectations as exc:
            # Only when the scenario's own list became invalid under newer engine rules: say where, keep choices.
            context["error"] = "The scenario's expectations would be invalid: " + "; ".join(exc.errors)
            return render(request, "runs/run_save_expectations.html", context, status=400)
        saved = f"Saved {len(selected)} expectation{'s' if len(selected) != 1 else ''} on “{scenario.name}”"
        saved += f" ({len(scenario.expectations)} in all)."
        if context["rescore"] and run.status == Run.Status.DONE:
            runs_rescore(run_ids=[run.pk])
            saved += " Re-scoring this run with them."
        messages.success(request, saved)
        return redirect("runs:detail", run_id=run.pk)
    return render(request, "runs/run_save_expectations.html", context)
