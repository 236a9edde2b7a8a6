"""Writes what a run does into its Run row as it happens, so a failing run keeps its partial transcript.

Shapes follow the reference contract exactly: `transcript` is TranscriptData (prompt, steps[] with text,
finishReason, toolCalls[{toolName, args}], toolResults[{toolName, result}], finalText) and `tool_calls` /
`all_tool_calls` are EvalToolCall records (toolName, args, result, timestamp) plus durationMs, isError,
nestedCalls and, for tools that declare an outputSchema, schemaValidation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from django.db import connection
from django.utils import timezone

from evalhub.model_client.results import ChatResult
from runs.models import Run, RunEnded

T = TypeVar("T")

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
    """Owns the Run row while the worker executes it. Every method saves before it returns.

    The agent loop is async and Django's ORM is not, so every write runs on one thread of the recorder's own,
    whose database connection `close()` shuts: a long-lived worker must not leak a connection per run.
    """

    def __init__(self, run: Run) -> None:
        self.run = run
        self._db = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"run-{run.pk}-db")

    async def _in_db_thread(self, work: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._db, work, *args)

    def close(self) -> None:
        # A function, not `connection.close`: the connection must be looked up on the recorder's own thread.
        self._db.submit(lambda: connection.close()).result()
        self._db.shutdown()

    async def cancel_requested(self) -> bool:
        return await self._in_db_thread(Run.objects.filter(pk=self.run.pk, cancel_requested=True).exists)

    async def model_answered(self, result: ChatResult) -> None:
        await self._in_db_thread(self._model_answered, result)

    async def tool_called(self, call: dict[str, Any]) -> None:
        await self._in_db_thread(self._tool_called, call)

    async def answered(self, text: str) -> None:
        await self._in_db_thread(self._answered, text)

    async def tools_listed(self, tools: list[dict[str, Any]]) -> None:
        await self._in_db_thread(self._tools_listed, tools)

    async def entering(self, phase: str) -> None:
        """Say what the worker starts doing now, so a run lost in the middle of it names where it stopped."""
        await self._in_db_thread(self._entering, phase)

    def _entering(self, phase: str) -> None:
        self.run.phase = phase[:200]
        self._save_if_running(["phase"])

    def _save(self, *extra_fields: str) -> None:
        self.run.heartbeat_at = timezone.now()
        self._save_if_running([*RECORDED_FIELDS, *extra_fields])

    def _save_if_running(self, fields: list[str]) -> None:
        # A run declared lost stays lost: its worker stops here rather than write into it (or call more tools).
        if not self.run.save_if_running(fields):
            raise RunEnded(f"Run {self.run.pk} ended while its worker was still working on it.")

    @property
    def steps(self) -> list[dict[str, Any]]:
        steps: list[dict[str, Any]] = self.run.transcript.setdefault("steps", [])
        return steps

    def _model_answered(self, result: ChatResult) -> None:
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

    def _tool_called(self, call: dict[str, Any]) -> None:
        """One tool call (an EvalToolCall) and its result in the current step."""
        self.steps[-1].setdefault("toolResults", []).append({"toolName": call["toolName"], "result": call["result"]})
        self.run.tool_calls = [*self.run.tool_calls, call]
        # Nested calls (code mode) are not made yet, so every call is top-level and allToolCalls equals toolCalls.
        self.run.all_tool_calls = [*self.run.all_tool_calls, call]
        self.run.tool_names = [*self.run.tool_names, call["toolName"]]
        self._save()

    def _answered(self, text: str) -> None:
        self.run.final_text = text
        self.run.transcript["finalText"] = text
        self._save()

    def _tools_listed(self, tools: list[dict[str, Any]]) -> None:
        """The exact tool definitions this run is offered, kept as a snapshot of its server."""
        assert self.run.server is not None
        snapshot = self.run.server.record_tools(tools)
        self.run.tool_snapshot = snapshot
        self.run.tools_hash = snapshot.tools_hash
        self._save_if_running(["tool_snapshot", "tools_hash"])
