"""GET /api/v1/runs/{id}/trace: the run as an OpenTelemetry trace, OTLP/JSON (runs/traces)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router

from evalhub.api.common import get_or_404, responses
from runs.models import Run
from runs.traces.export import run_trace_json

router = Router()


@router.get(
    "/{int:run_id}/trace",
    response=responses({200: dict[str, Any]}, 404),
    summary="A run as an OpenTelemetry trace (OTLP/JSON)",
    # Named as the runs API's other operations: the id is published, the module it lives in is not.
    operation_id="runs_api_get_run_trace",
)
def run_trace(request: HttpRequest, run_id: int) -> dict[str, Any]:
    """An OTLP/JSON ExportTraceServiceRequest with the GenAI semantic conventions: an `invoke_agent` span for the
    run, a `chat` span per model call (tokens, cost, latency), an `execute_tool` span per tool call (duration,
    error, an injected fault). POST it to a collector's /v1/traces as `application/json`. Names, numbers and
    outcomes only: no prompt, argument or result text."""
    run = get_or_404(Run.objects.select_related("scenario", "provider"), "Run", run_id)
    return run_trace_json(run)
