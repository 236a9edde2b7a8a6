"""A run's records as OpenTelemetry SDK spans (see the package docstring). Django-free: `TraceInput` carries what
is read of the run, so the spans can be built and checked without a database.

The trace and span ids are derived from the run, so exporting a run twice gives the same trace (a collector
keeps one), not two.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.semconv.attributes.error_attributes import ERROR_TYPE
from opentelemetry.trace import SpanKind, Status, StatusCode

AGENT_NAME = "evalhub"
MS = 1_000_000  # nanoseconds


@dataclass(frozen=True)
class TraceInput:
    run_id: int
    name: str  # the scenario's
    model: str
    provider: str
    started_ms: int
    finished_ms: int
    model_calls: Sequence[dict[str, Any]] = ()
    tool_calls: Sequence[dict[str, Any]] = ()  # top level, code mode's nested in their `nestedCalls`
    attributes: dict[str, Any] = field(default_factory=dict)  # evalhub.* facts of the run: verdict, cost, …
    error: str = ""  # why the run failed or ended in an error, for the root span's status


class _RunIds(IdGenerator):
    """Ids derived from the run: the same run exported twice is the same trace."""

    def __init__(self, run_id: int, started_ms: int) -> None:
        self._seed = f"evalhub run {run_id} {started_ms}"
        self._spans = 0

    def _hash(self, text: str, size: int) -> int:
        return int.from_bytes(hashlib.sha256(text.encode()).digest()[:size], "big") or 1

    def generate_trace_id(self) -> int:
        return self._hash(self._seed, 16)

    def generate_span_id(self) -> int:
        self._spans += 1
        return self._hash(f"{self._seed} span {self._spans}", 8)


def run_spans(run: TraceInput) -> list[ReadableSpan]:
    """The run's spans, ended, root first."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(
        resource=Resource.create({"service.name": "evalhub"}), id_generator=_RunIds(run.run_id, run.started_ms)
    )
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("evalhub.runs")
    root = tracer.start_span(
        f"{gen_ai.GenAiOperationNameValues.INVOKE_AGENT.value} {run.name}",
        kind=SpanKind.INTERNAL,
        start_time=run.started_ms * MS,
        attributes={
            gen_ai.GEN_AI_OPERATION_NAME: gen_ai.GenAiOperationNameValues.INVOKE_AGENT.value,
            gen_ai.GEN_AI_AGENT_NAME: AGENT_NAME,
            gen_ai.GEN_AI_CONVERSATION_ID: f"evalhub-run-{run.run_id}",
            gen_ai.GEN_AI_REQUEST_MODEL: run.model,
            gen_ai.GEN_AI_PROVIDER_NAME: run.provider,
            **{key: value for key, value in run.attributes.items() if value is not None},
        },
    )
    inside = trace.set_span_in_context(root)
    for call in run.model_calls:
        _model_span(tracer, inside, call, run)
    for call in run.tool_calls:
        _tool_span(tracer, inside, call, run.started_ms)
    if run.error:
        root.set_status(Status(StatusCode.ERROR, run.error))
    root.end(end_time=max(run.finished_ms, run.started_ms) * MS)
    provider.shutdown()
    spans = list(exporter.get_finished_spans())
    return spans[-1:] + spans[:-1]


def _model_span(tracer: trace.Tracer, parent: trace.Context, call: dict[str, Any], run: TraceInput) -> None:
    start = int(call.get("timestamp") or run.started_ms)
    model = str(call.get("model") or run.model)
    attributes: dict[str, Any] = {
        gen_ai.GEN_AI_OPERATION_NAME: gen_ai.GenAiOperationNameValues.CHAT.value,
        gen_ai.GEN_AI_PROVIDER_NAME: run.provider,
        gen_ai.GEN_AI_REQUEST_MODEL: run.model,
        gen_ai.GEN_AI_RESPONSE_MODEL: model,
        gen_ai.GEN_AI_USAGE_INPUT_TOKENS: int(call.get("input_tokens") or 0),
        gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS: int(call.get("output_tokens") or 0),
        gen_ai.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS: int(call.get("cached_tokens") or 0),
        "evalhub.step": int(call.get("step") or 0),
        "evalhub.attempts": int(call.get("attempts") or 1),
    }
    if call.get("finish_reason"):
        attributes[gen_ai.GEN_AI_RESPONSE_FINISH_REASONS] = [str(call["finish_reason"])]
    if call.get("cost_usd") is not None:
        # The GenAI conventions have no cost attribute yet: EvalHub's own, in USD.
        attributes["evalhub.cost_usd"] = float(call["cost_usd"])
    span = tracer.start_span(
        f"{gen_ai.GenAiOperationNameValues.CHAT.value} {run.model}",
        context=parent,
        kind=SpanKind.CLIENT,
        start_time=start * MS,
        attributes=attributes,
    )
    span.end(end_time=(start + int(call.get("latency_ms") or 0)) * MS)


def _tool_span(tracer: trace.Tracer, parent: trace.Context, call: dict[str, Any], started_ms: int) -> None:
    start = int(call.get("timestamp") or started_ms)
    name = str(call.get("toolName", ""))
    attributes: dict[str, Any] = {
        gen_ai.GEN_AI_OPERATION_NAME: gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value,
        gen_ai.GEN_AI_TOOL_NAME: name,
        gen_ai.GEN_AI_TOOL_TYPE: "function",
    }
    fault = call.get("injectedFault")
    if isinstance(fault, dict):
        attributes["evalhub.fault.name"] = str(fault.get("name", ""))
        attributes["evalhub.fault.effect"] = str(fault.get("effect", ""))
    if call.get("cancelled"):
        attributes["evalhub.cancelled"] = True
    span = tracer.start_span(
        f"{gen_ai.GenAiOperationNameValues.EXECUTE_TOOL.value} {name}",
        context=parent,
        kind=SpanKind.INTERNAL,
        start_time=start * MS,
        attributes=attributes,
    )
    if call.get("isError"):
        # Why, by kind only: the result's text stays in EvalHub.
        kind = "injected_fault" if isinstance(fault, dict) else "tool_error"
        span.set_attribute(ERROR_TYPE, kind)
        span.set_status(Status(StatusCode.ERROR, f"the tool answered an error ({kind})"))
    inside = trace.set_span_in_context(span)
    for nested in call.get("nestedCalls") or ():
        _tool_span(tracer, inside, nested, started_ms)
    span.end(end_time=(start + int(call.get("durationMs") or 0)) * MS)
