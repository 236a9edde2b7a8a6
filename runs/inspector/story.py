"""A run's record as one story: numbered steps, each with the model's text and its tool calls (arguments and
result together), the user's turns where they came in, and where the run stopped.

The record keeps the same facts in several places (a step's toolCalls/toolResults, the EvalToolCall records, the
model calls); here each fact is taken once from the place that has it whole: a call's name, arguments and result
from its EvalToolCall record (which adds duration, error and schema state), a step's tokens and latency from its
model call.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from runs.code_mode.numbering import labels_for
from runs.inspector.content import result_parts

CODE_TOOL = "run_code"


def _number_calls(records: list[dict[str, Any]], start: int) -> tuple[list[tuple[int, dict[str, Any]]], int]:
    """Each record with its 1-based position in allToolCalls, which lists a call, then its nested calls (depth
    first): the numbers the expectations' diff links to (#call-N)."""
    numbered = []
    position = start
    for record in records:
        numbered.append((position, record))
        position += 1 + _count_nested(record)
    return numbered, position


def _count_nested(record: dict[str, Any]) -> int:
    nested = record.get("nestedCalls") or []
    return sum(1 + _count_nested(child) for child in nested if isinstance(child, dict))


def call_view(record: dict[str, Any], number: int, *, label: str) -> dict[str, Any]:
    """One executed tool call, with its nested calls (code mode) as a tree. `number` is its position in
    allToolCalls (its anchor); `label` what people read (runs/code_mode/numbering.py): nested calls read 3.1, 3.2,
    the call they ran in, then their order."""
    nested_records = [child for child in record.get("nestedCalls") or [] if isinstance(child, dict)]
    numbered, _ = _number_calls(nested_records, number + 1)
    nested = [
        call_view(child, child_number, label=f"{label}.{index}")
        for index, (child_number, child) in enumerate(numbered, start=1)
    ]
    validation: dict[str, Any] | None = (
        record["schemaValidation"] if isinstance(record.get("schemaValidation"), dict) else None
    )
    args: Any = record.get("args")
    is_code = record.get("toolName") == CODE_TOOL and isinstance(args, dict) and isinstance(args.get("code"), str)
    error = bool(record.get("isError")) or "rawArguments" in record
    return {
        "number": number,
        "label": label,
        "anchor": f"call-{number}",
        "executed": True,
        "toolName": str(record.get("toolName", "?")),
        "args": args,
        "code": args["code"] if is_code else None,
        "console": [str(line) for line in record.get("console") or []] if is_code else [],
        "has_return": is_code and "returnValue" in record,
        "returnValue": record.get("returnValue"),
        "parts": result_parts(record.get("result")),
        "durationMs": record.get("durationMs"),
        "is_error": error,
        "cancelled": bool(record.get("cancelled")),  # cut off by a cancel: its result is EvalHub's note
        "injected": record.get("injectedFault"),  # a fault EvalHub injected on purpose (runs/fault_injection)
        "schema": validation,
        "schema_invalid": validation is not None and not validation.get("valid"),
        "rawArguments": record.get("rawArguments"),
        "truncated": record.get("truncated") or {},
        "replacedValues": record.get("replacedValues") or [],
        "userTurn": record.get("userTurn"),
        "nested": nested,
        "nested_error": any(child["is_error"] or child["nested_error"] for child in nested),
        "nested_warning": any(child["schema_invalid"] or child["nested_warning"] for child in nested),
    }


def _first_error(calls: list[dict[str, Any]]) -> str | None:
    for call in calls:
        if call["is_error"]:
            return str(call["anchor"])
        if (found := _first_error(call["nested"])) is not None:
            return found
    return None


def _unexecuted(asked: dict[str, Any]) -> dict[str, Any]:
    """A call the model asked for that has no record: still running, or stopped by a budget or an error."""
    return {"executed": False, "toolName": str(asked.get("toolName", "?")), "args": asked.get("args")}


def _user_turns(transcript: dict[str, Any]) -> list[dict[str, Any]]:
    """The conversation's user turns; a single-prompt run has one, its prompt."""
    turns = transcript.get("userTurns")
    if isinstance(turns, list) and turns:
        return [
            {
                "index": index,
                "source": str(turn.get("source", "prompt")),
                "text": str(turn.get("text", "")),
                "firstStep": max(turn["firstStep"], 0) if isinstance(turn.get("firstStep"), int) else 0,
            }
            for index, turn in enumerate(turn for turn in turns if isinstance(turn, dict))
        ]
    return [{"index": 0, "source": "prompt", "text": str(transcript.get("prompt", "")), "firstStep": 0}]


def build_story(
    *,
    transcript: dict[str, Any],
    tool_calls: list[dict[str, Any]],
    all_tool_calls: list[dict[str, Any]],
    model_calls: list[dict[str, Any]],
) -> dict[str, Any]:
    """The steps in order, the user turns placed before the step each led to, and the first error's anchor.

    `firstStep` of a user turn is the 0-based index of the first step it led to; a turn past the last step (the
    run stopped before answering it) comes after them.
    """
    # Records from before nested calls existed may have filled only allToolCalls: they are all top-level then.
    records = tool_calls or all_tool_calls
    numbered, _ = _number_calls(records, 1)
    steps_data = [step for step in transcript.get("steps") or [] if isinstance(step, dict)]
    turns = _user_turns(transcript)
    model_by_step = {call.get("step"): call for call in model_calls if isinstance(call, dict)}
    steps: list[dict[str, Any]] = []
    used = 0
    for index, step in enumerate(steps_data):
        calls: list[dict[str, Any]] = []
        for asked in step.get("toolCalls") or []:
            if used < len(numbered):
                number, record = numbered[used]
                used += 1
                calls.append(call_view(record, number, label=str(used)))
            else:
                calls.append(_unexecuted(asked if isinstance(asked, dict) else {}))
        model = model_by_step.get(index + 1)
        model_ms = model.get("latency_ms") if model else None
        tools_ms = sum(call.get("durationMs") or 0 for call in calls if call["executed"])
        executed = [call for call in calls if call["executed"]]
        steps.append(
            {
                "number": index + 1,
                "anchor": f"step-{index + 1}",
                "turns_before": [turn for turn in turns if turn["firstStep"] == index],
                "text": str(step.get("text") or ""),
                "finishReason": str(step.get("finishReason") or ""),
                "truncated": (step.get("truncated") or {}).get("text"),
                "model": model,
                "model_ms": model_ms,
                "tools_ms": tools_ms,
                "duration_ms": (model_ms or 0) + tools_ms,
                "calls": calls,
                "has_error": any(call["is_error"] or call["nested_error"] for call in executed),
                "has_warning": any(call["schema_invalid"] or call["nested_warning"] for call in executed),
            }
        )
    first_error = None
    for step in steps:
        first_error = _first_error([call for call in step["calls"] if call["executed"]])
        if first_error:
            break
    # Turns no step followed yet: every turn of a run that stopped before the model answered, else the last ones.
    after = [turn for turn in turns if turn["firstStep"] >= len(steps) or not steps]
    return {
        "steps": steps,
        "turns_after": after,
        "first_error": first_error,
        "error_count": sum(_count_errors([c for c in step["calls"] if c["executed"]]) for step in steps),
        "final_text": transcript.get("finalText") if isinstance(transcript.get("finalText"), str) else None,
        # Each allToolCalls index (0-based) with its label: what the expectations' diff entries link to.
        "call_labels": dict(enumerate(labels_for(records, all_tool_calls or records))),
    }


def _count_errors(calls: list[dict[str, Any]]) -> int:
    return sum(int(call["is_error"]) + _count_errors(call["nested"]) for call in calls)


@dataclass(frozen=True)
class Live:
    """A running run's clock at the moment the page is drawn: how long it has run, and what it is doing now
    (its phase: "tool call wait") since how long. The page counts both on from there."""

    elapsed_ms: int
    phase: str
    phase_ms: int | None


def live_clock(*, started_at: datetime | None, phase: str, phase_started_at: datetime | None, now: datetime) -> Live:
    def since(moment: datetime) -> int:
        return max(round((now - moment).total_seconds() * 1000), 0)

    return Live(
        elapsed_ms=since(started_at) if started_at else 0,
        phase=phase,
        phase_ms=since(phase_started_at) if phase_started_at else None,
    )


def timeline(
    *,
    story: dict[str, Any],
    duration_ms: int | None,
    scoring_ms: int,
    server_start: dict[str, Any] | None = None,
    live: Live | None = None,
) -> dict[str, Any]:
    """Where the run's time went: the model, the tools, the server's start (a stdio process started, or lent
    warm; an HTTP connect: `Run.server_start`), the harness (listing tools, recording: the rest of the run's wall
    time) and scoring (after the run; not part of its duration).

    While the run goes on (`live`), its wall time so far stands for the duration and the step in flight is a
    segment of its own ("now: tool call wait"): its time is spent, though nothing recorded it yet."""
    model_ms = sum(step["model_ms"] or 0 for step in story["steps"])
    tools_ms = sum(step["tools_ms"] for step in story["steps"])
    current_ms = (live.phase_ms or 0) if live else 0
    wall_ms = live.elapsed_ms if live else duration_ms
    parts: list[tuple[str, str, int, str]] = [("model", "Model", model_ms, ""), ("tools", "Tools", tools_ms, "")]
    if live and live.phase_ms is not None:
        parts.append(("current", f"Now: {live.phase}", current_ms, ""))
    start_ms = 0
    if wall_ms is not None and server_start is not None:
        start_ms = min(int(server_start.get("ms") or 0), max(wall_ms - model_ms - tools_ms - current_ms, 0))
        label, note = server_start_label(server_start)
        parts.append(("server", label, start_ms, note))
    if wall_ms is not None:
        parts.append(("harness", "Harness", max(wall_ms - model_ms - tools_ms - current_ms - start_ms, 0), ""))
    parts.append(("scoring", "Scoring", scoring_ms, ""))
    whole = sum(ms for _, _, ms, _ in parts)
    segments = [
        {"kind": kind, "label": label, "ms": ms, "note": note, "percent": round(100 * ms / whole, 1) if whole else 0}
        for kind, label, ms, note in parts
    ]
    for step in story["steps"]:
        # Each step's share of the run, for the bar beside its heading.
        step["percent"] = round(100 * step["duration_ms"] / whole, 1) if whole else 0
    return {"segments": segments, "total_ms": whole, "live": live}


def server_start_label(start: dict[str, Any]) -> tuple[str, str]:
    """("Server start", "warm, reused 3/20") for a stdio server; ("Connect", "") for an HTTP one."""
    if start.get("transport") not in (None, "stdio"):
        return "Connect", ""
    if start.get("warm"):
        return "Server start", f"warm, reused {start.get('use')}/{start.get('recycleAfter')}"
    if start.get("use"):
        return "Server start", f"new warm process, use {start.get('use')}/{start.get('recycleAfter')}"
    return "Server start", ""
