"""Writes what a run does into its Run row as it happens, so a failing run keeps its partial transcript.

Shapes follow the reference contract exactly: `transcript` is TranscriptData (prompt, steps[] with text,
finishReason, toolCalls[{toolName, args}], toolResults[{toolName, result}], finalText) and `tool_calls` /
`all_tool_calls` are EvalToolCall records (toolName, args, result, timestamp) plus durationMs, isError,
nestedCalls and, for tools that declare an outputSchema, schemaValidation. A call a cancel cut off is kept too,
marked `cancelled`, with EvalHub's note as its result (`call_cut_off`).

A conversation (runs/conversation) adds one optional top-level key to the transcript, `userTurns`: the user's
messages in order, `{index, source: "prompt"|"scripted"|"simulated", text, firstStep}` (index 0 is the
scenario's prompt; firstStep is the index in `steps` of the first step answering it), and each of its
EvalToolCall records carries `userTurn`, the index of the user turn it answers.

Every value passes three guards on its way in: configured secrets are masked (`redact`, the same Redactor that
masks stdio stderr), values PostgreSQL cannot store are kept as text (evalhub/storable.py) and sizes are capped
(runs/record_limits.py). An item that had to change says so: `truncated` holds the full size and hash of what was
cut, `replacedValues` where a NaN, an Infinity or a NUL character was replaced.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.db import transaction
from django.utils import timezone

from evalhub.mcp_client.connection import redact_json
from evalhub.mcp_client.redact import Redactor
from evalhub.model_client.results import ChatResult
from evalhub.servers.models import McpServer
from evalhub.storable import storable
from runs.db_writers import writer_for
from runs.events import publish as events
from runs.models import Run, RunEnded
from runs.record_limits import (
    FLOOR_BYTES,
    MODEL_MESSAGE_BYTES,
    RUN_BYTES,
    TOOL_RESULT_BYTES,
    Capped,
    cap_json,
    cap_text,
    compact_json,
)

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
    "simulator_calls",
    "heartbeat_at",
]


class Recorder:
    """Owns the Run row while the worker executes it. Every method saves before it returns.

    The agent loop is async and Django's ORM is not, so every write runs on a thread of the worker's shared
    writer pool (runs/db_writers.py). A run awaits each write before the next, so its writes stay in order.
    """

    def __init__(self, run: Run) -> None:
        self.run = run
        self._writer = writer_for(run.pk)
        # The run's server and provider secrets: the pipeline sets it once it has their configs.
        self.redact = Redactor(())
        # What the run may still record, counting every copy it stores.
        self._left = RUN_BYTES
        # The user turn the agent is answering, in a conversation (None in a one-prompt run).
        self.user_turn_index: int | None = None
        self.cancel_seen = False
        # The tool call in flight ({toolName, args, timestamp} and when it started), from `calling` until
        # `tool_called`: a cancel that cuts it off records it (`call_cut_off`).
        self._in_flight: tuple[dict[str, Any], float] | None = None

    async def _in_db_thread(self, work: Callable[..., T], *args: Any) -> T:
        return await asyncio.wrap_future(self._writer.submit(functools.partial(work, *args)))

    async def cancel_requested(self) -> bool:
        requested = await self._in_db_thread(Run.objects.filter(pk=self.run.pk, cancel_requested=True).exists)
        # Remembered for the run's server connection: a warm server is not lent again after a cancelled run.
        self.cancel_seen = self.cancel_seen or requested
        return requested

    async def model_answered(self, result: ChatResult) -> None:
        await self._in_db_thread(self._model_answered, result)

    def calling(self, name: str, arguments: dict[str, Any] | None) -> None:
        """A tool call starts (nothing is saved yet: its record comes with `tool_called`)."""
        call = {
            "toolName": name,
            "args": arguments if arguments is not None else {},
            "timestamp": int(time.time() * 1000),
        }
        self._in_flight = (call, time.perf_counter())

    async def tool_called(self, call: dict[str, Any]) -> None:
        self._in_flight = None
        await self._in_db_thread(self._tool_called, call)

    async def call_cut_off(self) -> None:
        """The run was cancelled while a tool call was in flight: record the call, marked `cancelled`, with a result
        saying so. It was sent, and the server may have acted on it, so the transcript must not lose it."""
        if self._in_flight is None:
            return
        call, started = self._in_flight
        seconds = time.perf_counter() - started
        text = (
            f"No result: the run was cancelled {seconds:.1f} s into this call, which was stopped. The server may "
            "have carried it out in part."
        )
        cut_off = {
            **call,
            "result": {"content": [{"type": "text", "text": text}], "isError": False},
            "durationMs": round(seconds * 1000),
            "isError": False,
            "nestedCalls": [],
            "cancelled": True,
        }
        await self.tool_called(cut_off)

    async def direct_call(self, name: str, arguments: dict[str, Any]) -> None:
        """A step with no model call: EvalHub itself calls one tool (an execution-level scenario)."""
        await self._in_db_thread(self._direct_call, name, arguments)

    async def server_evals_changed(self) -> None:
        """The server sent notifications/evals/list_changed: its shipped evals need a re-sync."""
        await self._in_db_thread(self._server_evals_changed)

    async def answered(self) -> None:
        """The last model message is the run's final answer."""
        await self._in_db_thread(self._answered)

    async def user_turn(self, source: str, text: str) -> None:
        """A user message of a conversation: the prompt ("prompt"), a scripted or a simulated follow-up."""
        await self._in_db_thread(self._user_turn, source, text)

    async def simulator_answered(self, result: ChatResult) -> None:
        """One model call of the simulated user: recorded apart from the agent's calls, tokens and cost."""
        await self._in_db_thread(self._simulator_answered, result)

    async def tools_listed(self, tools: list[dict[str, Any]]) -> None:
        await self._in_db_thread(self._tools_listed, tools)

    async def entering(self, phase: str) -> None:
        """Say what the worker starts doing now, so a run lost in the middle of it names where it stopped."""
        await self._in_db_thread(self._entering, phase)

    async def entering_unless_cancelled(self, phase: str) -> bool:
        """`entering(phase)`, unless a cancel was asked for: then False, and the phase stays what it was.

        One UPDATE where a cancel check and `entering` took two queries (issue 30: the worker's CPU per run)."""
        entered = await self._in_db_thread(self._entering_unless_cancelled, phase)
        self.cancel_seen = self.cancel_seen or not entered
        return entered

    def _entering(self, phase: str) -> None:
        self.run.phase, self.run.phase_started_at = phase[:200], timezone.now()
        self._save_if_running(["phase", "phase_started_at"])

    def _entering_unless_cancelled(self, phase: str) -> bool:
        running = Run.objects.filter(pk=self.run.pk, status=Run.Status.RUNNING, cancel_requested=False)
        now = timezone.now()
        if running.update(phase=phase[:200], phase_started_at=now):
            self.run.phase, self.run.phase_started_at = phase[:200], now
            return True
        # Cancelled (whether or not it has ended since), or ended: as the check and `entering` found it.
        if Run.objects.filter(pk=self.run.pk, cancel_requested=True).exists():
            return False
        raise RunEnded(f"Run {self.run.pk} ended while its worker was still working on it.")

    def _save(self, *extra_fields: str, step: dict[str, Any] | None = None) -> None:
        """Save the record; with `step`, also announce it on the event stream (runs.events), in the same commit."""
        self.run.heartbeat_at = timezone.now()
        with transaction.atomic():
            self._save_if_running([*RECORDED_FIELDS, *extra_fields])
            if step is not None:
                events.run_step(self.run, step)

    def _save_if_running(self, fields: list[str]) -> None:
        # A run declared lost stays lost: its worker stops here rather than write into it (or call more tools).
        if not self.run.save_if_running(fields):
            raise RunEnded(f"Run {self.run.pk} ended while its worker was still working on it.")

    @property
    def steps(self) -> list[dict[str, Any]]:
        steps: list[dict[str, Any]] = self.run.transcript.setdefault("steps", [])
        return steps

    def _text(self, text: str, *, limit: int, copies: int = 1, sized_for: int | None = None) -> Capped:
        clean, _ = storable(self.redact(text))
        return self._spend(cap_text(clean, self._limit(limit, sized_for or copies)), copies)

    def _json(self, value: Any, *, limit: int, where: str, copies: int = 1) -> tuple[Capped, list[dict[str, str]]]:
        clean, replaced = storable(redact_json(value, self.redact))
        capped = self._spend(cap_json(clean, self._limit(limit, copies)), copies)
        return capped, [item.under(where)._asdict() for item in replaced]

    def _limit(self, limit: int, copies: int) -> int:
        """The item's own cap, or what the run has left for all its copies; never below the floor."""
        return max(FLOOR_BYTES, min(limit, self._left // copies))

    def _spend(self, capped: Capped, copies: int) -> Capped:
        self._left -= capped.size * copies
        return capped

    def _model_answered(self, result: ChatResult) -> None:
        """One model call: a new transcript step, and its tokens and cost."""
        # Sized for three copies, as the final answer is also the run's finalText and final_text; the other two
        # are paid for when it becomes that (`_answered`).
        text = self._text(result.text, limit=MODEL_MESSAGE_BYTES, sized_for=3)
        step: dict[str, Any] = {
            "text": text.value,
            "finishReason": self._text(result.finish_reason, limit=FLOOR_BYTES).value,
        }
        if text.cut:
            step["truncated"] = {"text": text.cut}
        if result.tool_calls:
            step["toolCalls"] = [self._tool_call(call.name, call.arguments) for call in result.tool_calls]
            step["toolResults"] = []
        self.steps.append(step)
        usage = result.usage
        self.run.record_model_call(
            {
                "step": len(self.steps),
                "model": self._text(result.model, limit=FLOOR_BYTES).value,
                "input_tokens": usage.input_tokens if usage else 0,
                "output_tokens": usage.output_tokens if usage else 0,
                "cached_tokens": usage.cached_tokens if usage else 0,
                "cost_usd": str(result.cost.total_usd) if result.cost.total_usd is not None else None,
                "cost_source": result.cost.source,
                "latency_ms": round(result.latency_ms),
                # When it began (epoch ms): the fault timeline and the exported trace place it in time.
                "timestamp": int(time.time() * 1000) - round(result.latency_ms),
                "attempts": result.attempts,
                "finish_reason": step["finishReason"],
            }
        )
        call = self.run.model_calls[-1]
        self._save(
            step={
                "kind": "model",
                "step": len(self.steps),
                "model": call["model"],
                "latency_ms": call["latency_ms"],
                "input_tokens": call["input_tokens"],
                "output_tokens": call["output_tokens"],
                "tool_calls": [entry["toolName"] for entry in step.get("toolCalls", [])],
                "finish_reason": step["finishReason"],
            }
        )

    def _server_evals_changed(self) -> None:
        if self.run.server_id is not None:
            McpServer.objects.filter(pk=self.run.server_id).update(evals_changed_at=timezone.now())

    def _direct_call(self, name: str, arguments: dict[str, Any]) -> None:
        self.steps.append(
            {"text": "", "finishReason": "", "direct": True, "toolCalls": [self._tool_call(name, arguments)]}
        )
        self._save()

    def _tool_call(self, name: str, arguments: dict[str, Any] | None) -> dict[str, Any]:
        """A step's {toolName, args}; the arguments are stored three times (here and in both tool-call lists)."""
        args, replaced = self._json(
            arguments if arguments is not None else {}, limit=MODEL_MESSAGE_BYTES, where="args", copies=3
        )
        entry: dict[str, Any] = {"toolName": self._text(name, limit=FLOOR_BYTES, copies=5).value, "args": args.value}
        if args.cut:
            entry["truncated"] = {"args": args.cut}
        if replaced:
            entry["replacedValues"] = replaced
        return entry

    def _tool_called(self, call: dict[str, Any]) -> None:
        """One tool call (an EvalToolCall) and its result in the current step.

        Its name and arguments are those the step recorded for it (the n-th call of the step), already kept.
        Calls nested in it (code mode) are guarded like it, and allToolCalls lists them right after it.
        """
        step = self.steps[-1]
        results = step.setdefault("toolResults", [])
        asked = step["toolCalls"][len(results)]
        if "offeredName" in call:
            # A variant offered this tool under another name (runs/variants): the step names the real tool,
            # which the server was sent, and keeps the name the model used beside it.
            real = self._text(call["toolName"], limit=FLOOR_BYTES, copies=5).value
            asked.update(toolName=real, offeredName=asked["toolName"])
        record = self._guarded(call, asked)
        inner_calls = call.get("nestedCalls", [])
        nested = [self._guarded(inner, self._tool_call(inner["toolName"], inner["args"])) for inner in inner_calls]
        record["nestedCalls"] = nested
        for key in ("console", "returnValue"):
            if key in call:
                record[key] = self._json(call[key], limit=TOOL_RESULT_BYTES, where=key, copies=2)[0].value
        entry = {"toolName": record["toolName"], "result": record["result"]}
        if call.get("notExecuted"):
            entry["notExecuted"] = True  # an invocation-level call: only the choice counts (runs/levels.py)
        if call.get("cancelled"):
            entry["cancelled"] = True  # cut off by a cancel (`call_cut_off`): its result is EvalHub's note
        results.append(entry)
        self.run.tool_calls = [*self.run.tool_calls, record]
        self.run.all_tool_calls = [*self.run.all_tool_calls, record, *nested]
        self.run.tool_names = [*self.run.tool_names, record["toolName"], *(inner["toolName"] for inner in nested)]
        tool_step = {
            "kind": "tool",
            "step": len(self.steps),
            "tool_name": record["toolName"],
            "duration_ms": record.get("durationMs"),
            "is_error": bool(record.get("isError")),
            "nested_calls": len(nested),
        }
        if call.get("notExecuted"):
            tool_step["not_executed"] = True
        if call.get("cancelled"):
            tool_step["cancelled"] = True
        self._save(step=tool_step)

    def _guarded(self, call: dict[str, Any], asked: dict[str, Any]) -> dict[str, Any]:
        """An EvalToolCall as stored: `asked` is its name and arguments as already kept (see `_tool_call`)."""
        result, replaced = self._json(call["result"], limit=TOOL_RESULT_BYTES, where="result", copies=3)
        record = {**call, "toolName": asked["toolName"], "args": asked["args"], "result": result.value}
        truncated = {**asked.get("truncated", {}), **({"result": result.cut} if result.cut else {})}
        if truncated:
            record["truncated"] = truncated
        if asked.get("replacedValues") or replaced:
            record["replacedValues"] = [*asked.get("replacedValues", []), *replaced]
        if "rawArguments" in call:
            record["rawArguments"] = self._text(call["rawArguments"], limit=MODEL_MESSAGE_BYTES, copies=2).value
        if "schemaValidation" in call:
            # jsonschema quotes the offending value, which may be the whole result.
            message = self._text(call["schemaValidation"]["message"], limit=FLOOR_BYTES, copies=2).value
            record["schemaValidation"] = {**call["schemaValidation"], "message": message}
        if self.user_turn_index is not None:
            record["userTurn"] = self.user_turn_index
        return record

    def _answered(self) -> None:
        text = self.steps[-1]["text"]
        self._left -= 2 * len(compact_json(text))
        self.run.final_text = text
        self.run.transcript["finalText"] = text
        self._save()

    def _user_turn(self, source: str, text: str) -> None:
        turns: list[dict[str, Any]] = self.run.transcript.setdefault("userTurns", [])
        self.user_turn_index = len(turns)
        message = self._text(text, limit=MODEL_MESSAGE_BYTES).value
        turns.append({"index": self.user_turn_index, "source": source, "text": message, "firstStep": len(self.steps)})
        self._save(step={"kind": "user", "turn": self.user_turn_index, "source": source})

    def _simulator_answered(self, result: ChatResult) -> None:
        usage = result.usage
        call = {
            "userTurn": (self.user_turn_index or 0) + 1,
            "model": self._text(result.model, limit=FLOOR_BYTES).value,
            "input_tokens": usage.input_tokens if usage else 0,
            "output_tokens": usage.output_tokens if usage else 0,
            "cost_usd": str(result.cost.total_usd) if result.cost.total_usd is not None else None,
            "latency_ms": round(result.latency_ms),
            "text": self._text(result.text, limit=MODEL_MESSAGE_BYTES).value,
        }
        self.run.simulator_calls = [*self.run.simulator_calls, call]
        self._save()

    def _tools_listed(self, tools: list[dict[str, Any]]) -> None:
        """The exact tool definitions this run is offered, kept as a snapshot of its server."""
        assert self.run.server is not None
        snapshot = self.run.server.record_tools(storable(tools)[0])
        self.run.tool_snapshot = snapshot
        self.run.tools_hash = snapshot.tools_hash
        self._save_if_running(["tool_snapshot", "tools_hash"])
