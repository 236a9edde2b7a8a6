"""A stored run's trace out: OTLP/JSON for the run page and the API, and a push to EVALHUB_OTLP_ENDPOINT (OTLP over
HTTP, protobuf) when the worker has finished the run. Both encodings are the OpenTelemetry SDK's own."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from opentelemetry.exporter.otlp.json.common.trace_encoder import encode_spans
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import SpanExportResult

from runs.models import Run
from runs.traces.spans import TraceInput, run_spans

logger = logging.getLogger(__name__)
# Seconds the push may take: it runs on the worker, after the run, before the worker takes its next task.
PUSH_TIMEOUT = 10.0


def trace_input(run: Run) -> TraceInput:
    started = run.started_at or run.created_at
    finished = run.finished_at or started
    error = run.failure_reason if run.verdict in ("fail", "inconclusive") else ""
    return TraceInput(
        run_id=run.pk,
        name=run.scenario.name if run.scenario else f"run {run.pk}",
        model=run.model,
        provider=run.provider.name if run.provider else "",
        started_ms=int(started.timestamp() * 1000),
        finished_ms=int(finished.timestamp() * 1000),
        model_calls=run.model_calls,
        tool_calls=run.tool_calls,
        attributes={
            "evalhub.run.id": run.pk,
            "evalhub.run.status": run.status,
            "evalhub.run.stop_reason": run.stop_reason or None,
            "evalhub.verdict": run.verdict or None,
            "evalhub.failure_cause": run.failure_cause or None,
            "evalhub.score": run.score,
            "evalhub.cost_usd": float(run.cost_usd) if run.cost_usd is not None else None,
            "gen_ai.usage.input_tokens": run.input_tokens,
            "gen_ai.usage.output_tokens": run.output_tokens,
        },
        error=error,
    )


def run_trace_json(run: Run) -> dict[str, Any]:
    """The run as an OTLP/JSON ExportTraceServiceRequest ({"resourceSpans": [...]})."""
    return encode_spans(run_spans(trace_input(run))).to_dict()


def push_run_trace(run: Run) -> bool:
    """Send the run's trace to EVALHUB_OTLP_ENDPOINT, if set; True when the collector accepted it. Never raises:
    a collector that is down must not fail the run. What is logged names the host only (never the headers, which
    may hold a token, nor a URL's credentials)."""
    endpoint = settings.EVALHUB_OTLP_ENDPOINT
    if not endpoint:
        return False
    host = urlsplit(endpoint).hostname or "?"
    try:
        exporter = OTLPSpanExporter(
            endpoint=traces_url(endpoint), headers=settings.EVALHUB_OTLP_HEADERS or None, timeout=PUSH_TIMEOUT
        )
        try:
            result = exporter.export(run_spans(trace_input(run)))
        finally:
            exporter.shutdown()
    except Exception as exc:
        logger.warning(
            "Run %s: pushing its trace to the OTLP endpoint on %s failed (%s).", run.pk, host, type(exc).__name__
        )
        return False
    if result is not SpanExportResult.SUCCESS:
        logger.warning("Run %s: the OTLP endpoint on %s did not accept its trace.", run.pk, host)
        return False
    return True


def traces_url(endpoint: str) -> str:
    """The OTLP/HTTP traces URL: a base endpoint (http://collector:4318) gets /v1/traces, as OTEL_EXPORTER_OTLP_ENDPOINT
    does; a URL with its own path is used as it is."""
    parts = urlsplit(endpoint)
    if parts.path in ("", "/"):
        return endpoint.rstrip("/") + "/v1/traces"
    return endpoint
