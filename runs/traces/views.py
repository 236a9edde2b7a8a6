"""The run page's "Trace (OTLP/JSON)" download (runs/traces)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from runs.models import Run
from runs.traces.export import run_trace_json


@require_GET
def run_trace_download(request: HttpRequest, run_id: int) -> JsonResponse:
    run = get_object_or_404(Run.objects.select_related("scenario", "provider"), pk=run_id)
    response = JsonResponse(run_trace_json(run))
    response["Content-Disposition"] = f'attachment; filename="evalhub-run-{run.pk}-trace.json"'
    return response
