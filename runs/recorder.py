"""Writes what a run does into its Run row as it happens, so a failing run keeps its partial transcript.

Shapes follow the reference contract exactly: `transcript` is TranscriptData (prompt, steps[] with text,
finishReason, toolCalls[{toolName, args}], toolResults[{toolName, result}], finalText) and `tool_calls` /
`all_tool_calls` are EvalToolCall records (toolName, args, result, timestamp) plus durationMs, isError,
nestedCalls and, for tools that declare an outputSchema, schemaValidation.
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from evalhub.providers.results import ChatResult
from runs.models import Run

RECORDED_FIELDS = [
    "transcript",
    "tool_calls",
    "all_tool_calls",
    "tool_names",
    "final_text",
    "model_calls",
    "input_tokens",
    "output_tokens",
    "cached_tokens",
    "cost_usd",
    "heartbeat_at",
]


class Recorder:
    """Owns the Run row while the worker executes it. Every method saves before it returns."""

    def __init__(self, run: Run) -> None:
        self.run = run

    def _save(self, *extra_fields: str) -> None:
        self.run.heartbeat_at = timezone.now()
        self.run.save(update_fields=[*RECORDED_FIELDS, *extra_fields])

    @property
    def steps(self) -> list[dict[str, Any]]:
        steps: list[dict[str, Any]] = self.run.transcript.setdefault("steps", [])
        return steps

    def cancel_requested(self) -> bool:
        return Run.objects.filter(pk=self.run.pk, cancel_requested=True).exists()

    def model_answered(self, result: ChatResult) -> None:
        """One model call: a new transcript step, and its tokens and cost."""
        step: dict[str, Any] = {"text": result.text, "finishReason": result.finish_reason}
        if result.tool_calls:
            step["toolCalls"] = [
                {"toolName": call.name, "args": call.arguments if call.arguments is not None else {}}
                for call in result.tool_calls
            ]
            step["toolResults"] = []
        self.steps.append(step)
        usage = result.usage
        self.run.record_model_call(
            {
                "step": len(self.steps),
                "model": result.model,
                "input_tokens": usage.input_tokens if usage else 0,
                "output_tokens": usage.output_tokens if usage else 0,
                "cached_tokens": usage.cached_tokens if usage else 0,
                "cost_usd": str(result.cost.total_usd) if result.cost.total_usd is not None else None,
                "cost_source": result.cost.source,
                "latency_ms": round(result.latency_ms),
                "attempts": result.attempts,
                "finish_reason": result.finish_reason,
            }
        )
        self._save()

    def tool_called(self, call: dict[str, Any]) -> None:
        """One tool call (an EvalToolCall) and its result in the current step."""
        self.steps[-1].setdefault("toolResults", []).append({"toolName": call["toolName"], "result": call["result"]})
        self.run.tool_calls = [*self.run.tool_calls, call]
        # Nested calls (code mode) are not made yet, so every call is top-level and allToolCalls equals toolCalls.
        self.run.all_tool_calls = [*self.run.all_tool_calls, call]
        self.run.tool_names = [*self.run.tool_names, call["toolName"]]
        self._save()

    def answered(self, text: str) -> None:
        self.run.final_text = text
        self.run.transcript["finalText"] = text
        self._save()
