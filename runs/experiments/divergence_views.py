"""Two runs side by side, steps aligned, with the first step where they part ways highlighted and named.

Reached from a regressed cell of a comparison (a passing baseline trial and a failing candidate trial) and from
any run's page ("Compare with…", which first lists runs of the same scenario to compare with).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from evalhub.ids import parse_id
from runs.experiments.divergence import Step, first_divergence, render_call
from runs.models import Run

PICKER_SIZE = 30


def _error(run: Run) -> str | None:
    return str((run.error or {}).get("message") or "error") if run.status == Run.Status.ERROR else None


def _step(step: Step | None) -> dict[str, Any] | None:
    if step is None:
        return None
    return {
        "text": step.text,
        "calls": [render_call(call) for call in step.calls],
        "results": [
            {
                "name": result.name,
                "result": result.result,
                "is_error": isinstance(result.result, dict) and bool(result.result.get("isError")),
            }
            for result in step.results
        ],
    }


@require_GET
def run_divergence(request: HttpRequest, run_id: int) -> HttpResponse:
    """`run_id` is "this run" (the candidate); `?baseline=<id>` the run it is compared with."""
    candidate = get_object_or_404(Run.objects.select_related("scenario"), pk=run_id)
    wanted = request.GET.get("baseline", "")
    context: dict[str, Any] = {"section": "runs", "candidate": candidate}
    baseline_id = parse_id(wanted)
    if baseline_id is None:
        # The picker: finished runs of the same scenario, passing ones first (the usual "good" side).
        context["choices"] = (
            Run.objects.filter(scenario_id=candidate.scenario_id, status__in=Run.FINISHED)
            .exclude(pk=candidate.pk)
            # What each choice's badge reads (verdict, cause, reason, whether people reviewed it): one query.
            .only(
                "pk",
                "status",
                "passed",
                "score",
                "model",
                "created_at",
                "settings",
                "scenario_id",
                "verdict",
                "auto_verdict",
                "human_verdict",
                "failure_cause",
                "failure_reason",
            )
            .order_by("-passed", "-created_at")[:PICKER_SIZE]
        )
        return render(request, "experiments/run_divergence.html", context)
    baseline = get_object_or_404(Run.objects.select_related("scenario"), pk=baseline_id)
    divergence = first_divergence(
        baseline.transcript.get("steps") or [],
        candidate.transcript.get("steps") or [],
        baseline_error=_error(baseline),
        candidate_error=_error(candidate),
    )
    context.update(
        baseline=baseline,
        divergence=divergence,
        rows=[
            {
                "number": index + 1,
                "first": index == divergence.first_index,
                "differs": pair.differs,
                "parts": sorted(pair.parts),
                "baseline": _step(pair.baseline),
                "candidate": _step(pair.candidate),
                "baseline_error": pair.baseline_error,
                "candidate_error": pair.candidate_error,
            }
            for index, pair in enumerate(divergence.pairs)
        ],
    )
    return render(request, "experiments/run_divergence.html", context)
