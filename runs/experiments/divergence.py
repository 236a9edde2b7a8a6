"""Where two runs of the same scenario first part ways: their transcripts side by side and one plain sentence.

Steps are TranscriptData steps (`scorers/contract.py`): {text?, finishReason?, toolCalls?: [{toolName, args}],
toolResults?: [{toolName, result}]}. Pure Python: no Django, no database.

Alignment is positional, step i against step i: an agent's loop is sequential (one model call per step), so the
same path means the same calls at the same step numbers, and a sequence alignment would only hide where they parted.

The runs part ways (the "path" differs) where their tool calls or arguments differ (as canonical JSON), where one
stops or ends with an error and the other goes on, or where their final answers differ. Model text counts only when
neither step calls a tool: wording before the same tool call varies between trials without changing what the agent
does. Tool results are what the server answered, not what the agent chose, so they only explain a divergence: when
the paths split, an earlier step where the same call got a different result is reported instead (the earliest).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Part = Literal["text", "tool", "arguments", "result", "error"]

MAX_ARGS_SHOWN = 3
MAX_VALUE_CHARS = 30
MAX_TEXT_CHARS = 60
MAX_ERROR_CHARS = 200


def canonical_json(value: Any) -> str:
    """One spelling per JSON value (sorted keys, no spaces), so equal values compare equal as strings."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


@dataclass(frozen=True)
class ToolCall:
    name: str
    args: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    name: str
    result: Any


@dataclass(frozen=True)
class Step:
    """One transcript step as recorded (`text` keeps its original spacing, for display); `number` counts from 1."""

    number: int
    text: str
    calls: tuple[ToolCall, ...]
    results: tuple[ToolResult, ...]

    @classmethod
    def from_transcript(cls, raw: Mapping[str, Any], number: int) -> Step:
        calls = [ToolCall(str(c.get("toolName", "")), _as_arguments(c.get("args"))) for c in raw.get("toolCalls") or ()]
        results = [ToolResult(str(r.get("toolName", "")), r.get("result")) for r in raw.get("toolResults") or ()]
        return cls(number=number, text=str(raw.get("text") or ""), calls=tuple(calls), results=tuple(results))

    @property
    def result_keys(self) -> tuple[tuple[str, str], ...]:
        return tuple((r.name, canonical_json(r.result)) for r in self.results)


def _as_arguments(args: Any) -> dict[str, Any]:
    # The contract says an object; a model's malformed arguments still deserve a comparable shape.
    return dict(args) if isinstance(args, Mapping) else {} if args is None else {"args": args}


@dataclass(frozen=True)
class ArgumentChange:
    """One argument that differs: `call` indexes the step's calls, `path` is dotted for nested objects
    ("filters.max_price"), `before` / `after` are canonical JSON, None when the key is absent on that side."""

    call: int
    path: str
    before: str | None
    after: str | None


@dataclass(frozen=True)
class StepPair:
    """Step i of both runs. `parts` lists everything that differs, wording before a tool call included. `splits`:
    both runs have the step and the agents did something different (other calls, another final answer). `differs`:
    anything but that wording differs (a pair can differ in its results alone without the runs diverging)."""

    baseline: Step | None
    candidate: Step | None
    differs: bool
    splits: bool
    parts: frozenset[Part]
    changed_arguments: tuple[ArgumentChange, ...] = ()
    baseline_error: str | None = None
    candidate_error: str | None = None


@dataclass(frozen=True)
class Divergence:
    """The aligned steps, the index in `pairs` of the first divergence (None when the paths are the same; the step
    number is index + 1) and one sentence saying what happened there."""

    pairs: tuple[StepPair, ...]
    first_index: int | None
    explanation: str


def first_divergence(
    baseline_steps: Sequence[Mapping[str, Any]],
    candidate_steps: Sequence[Mapping[str, Any]],
    *,
    baseline_error: str | None = None,
    candidate_error: str | None = None,
) -> Divergence:
    """Align two runs' transcript steps and find where the candidate ("this run") first left the baseline's path.

    Pass a run's error message when it ended in error: the error is placed at the step it interrupted.
    """
    left = [Step.from_transcript(raw, i + 1) for i, raw in enumerate(baseline_steps)]
    right = [Step.from_transcript(raw, i + 1) for i, raw in enumerate(candidate_steps)]
    left_error_at = _error_index(left) if baseline_error is not None else None
    right_error_at = _error_index(right) if candidate_error is not None else None
    rows = max(len(left), len(right), *(at + 1 for at in (left_error_at, right_error_at) if at is not None))
    pairs = tuple(
        _pair(
            left[i] if i < len(left) else None,
            right[i] if i < len(right) else None,
            baseline_error if i == left_error_at else None,
            candidate_error if i == right_error_at else None,
        )
        for i in range(rows)
    )
    index, sentence = _find_divergence(pairs)
    # One full stop, even after text cut short with "…".
    return Divergence(pairs, index, sentence if sentence.endswith("…") else f"{sentence}.")


def _find_divergence(pairs: tuple[StepPair, ...]) -> tuple[int | None, str]:
    first_result_change = next((i for i, pair in enumerate(pairs) if "result" in pair.parts), None)
    for i, pair in enumerate(pairs):
        one_side_ended = (pair.baseline is None) != (pair.candidate is None)
        errored = pair.baseline_error is not None or pair.candidate_error is not None
        # An error explains a missing step better than "stopped", but a different call before it comes first.
        if errored and not pair.splits:
            if "error" in pair.parts:
                return i, _explain_error(i + 1, pair.baseline_error, pair.candidate_error)
            if not one_side_ended:
                return None, f"The runs took the same path and both ended with an error: {_error(pair.candidate_error)}"
        if pair.splits or one_side_ended:
            if first_result_change is not None and first_result_change < i:
                return first_result_change, _explain_result(pairs[first_result_change])
            return i, _explain_path(i, pair)
    if first_result_change is not None:
        return None, f"The runs took the same path; only tool results differed, first at step {first_result_change + 1}"
    return None, "The runs took the same path"


def _error_index(steps: list[Step]) -> int:
    """Where an error interrupted a run: its last step when that step's tool calls lack results, else the next."""
    interrupted = bool(steps) and len(steps[-1].results) < len(steps[-1].calls)
    return len(steps) - 1 if interrupted else len(steps)


def _pair(left: Step | None, right: Step | None, left_error: str | None, right_error: str | None) -> StepPair:
    parts: set[Part] = set()
    changes: list[ArgumentChange] = []
    splits = False
    if left_error != right_error:
        parts.add("error")
    if left is not None and right is not None:
        if " ".join(left.text.split()) != " ".join(right.text.split()):
            parts.add("text")
        if [c.name for c in left.calls] != [c.name for c in right.calls]:
            parts.add("tool")
        else:
            for index, (before, after) in enumerate(zip(left.calls, right.calls, strict=True)):
                changes.extend(_argument_changes(index, "", before.args, after.args))
            if changes:
                parts.add("arguments")
        # Only results both runs got: a run interrupted mid-step lacks some, which its error or stop explains.
        if _first_result_change(left, right) is not None:
            parts.add("result")
        # Wording before the same tool call is noise; only final answers (no call on either side) are compared.
        splits = bool(parts & {"tool", "arguments"}) or ("text" in parts and not left.calls and not right.calls)
    differs = splits or bool(parts & {"result", "error"}) or (left is None) != (right is None)
    return StepPair(left, right, differs, splits, frozenset(parts), tuple(changes), left_error, right_error)


def _first_result_change(left: Step, right: Step) -> int | None:
    pairs = zip(left.result_keys, right.result_keys, strict=False)
    return next((i for i, (before, after) in enumerate(pairs) if before != after), None)


def _argument_changes(call: int, path: str, before: Any, after: Any) -> list[ArgumentChange]:
    if isinstance(before, Mapping) and isinstance(after, Mapping):
        changes: list[ArgumentChange] = []
        for key in [*before, *(key for key in after if key not in before)]:
            where = f"{path}.{key}" if path else str(key)
            if key not in before or key not in after:
                old = canonical_json(before[key]) if key in before else None
                new = canonical_json(after[key]) if key in after else None
                changes.append(ArgumentChange(call, where, old, new))
            else:
                changes.extend(_argument_changes(call, where, before[key], after[key]))
        return changes
    old, new = canonical_json(before), canonical_json(after)
    return [ArgumentChange(call, path, old, new)] if old != new else []


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _value(value: Any) -> str:
    return _shorten(json.dumps(value, ensure_ascii=False, default=str), MAX_VALUE_CHARS)


def _quote(text: str) -> str:
    return f'"{_shorten(" ".join(text.split()), MAX_TEXT_CHARS)}"'


def _error(message: str | None) -> str:
    return _shorten(str(message).strip().rstrip("."), MAX_ERROR_CHARS)


def render_call(call: ToolCall, *, only: Sequence[str] | None = None) -> str:
    """`get_weather(latitude: 48.85, longitude: 2.35)`: at most three arguments, long values cut with "…", and
    "…" standing for any argument left out (all but `only`, when given)."""
    keys = [key for key in call.args if only is None or key in only]
    shown = ", ".join(f"{key}: {_value(call.args[key])}" for key in keys[:MAX_ARGS_SHOWN])
    if len(keys) > MAX_ARGS_SHOWN or len(keys) < len(call.args):
        shown = f"{shown}, …" if shown else "…"
    return f"{call.name}({shown})"


def _action(step: Step) -> str:
    return ("called " + " and ".join(map(render_call, step.calls))) if step.calls else f"answered {_quote(step.text)}"


def _render_change(change: ArgumentChange) -> str:
    before, after = ("(absent)" if side is None else _value(json.loads(side)) for side in (change.before, change.after))
    return f"{change.path} {before} → {after}"


def _render_result(result: ToolResult) -> str:
    value = result.result
    # An MCP CallToolResult reads best as its text content.
    if isinstance(value, Mapping) and isinstance(value.get("content"), list):
        texts = [item.get("text", "") for item in value["content"] if isinstance(item, Mapping)]
        if any(texts):
            return ("error " if value.get("isError") else "") + _quote(" ".join(texts))
    return _shorten(canonical_json(value), MAX_TEXT_CHARS)


def _explain_path(index: int, pair: StepPair) -> str:
    left, right = pair.baseline, pair.candidate
    if left is None or right is None:
        stopped, other, step = (
            ("The baseline", "this run", right) if left is None else ("This run", "the baseline", left)
        )
        assert step is not None
        if index == 0:
            return f"{stopped} took no steps; {other} took step 1: {_action(step)}"
        return f"{stopped} stopped after step {index}; {other} went on to step {index + 1}: {_action(step)}"
    if "tool" not in pair.parts and "arguments" not in pair.parts:
        return f"Step {left.number}: the final answers differ: {_quote(left.text)} → {_quote(right.text)}"
    if "tool" in pair.parts:
        return f"Step {left.number}: the baseline {_action(left)}; this run {_action(right)}"
    call_index = pair.changed_arguments[0].call
    changes = [change for change in pair.changed_arguments if change.call == call_index]
    call = left.calls[call_index]
    changed_keys = {change.path.split(".")[0] for change in changes}
    same = render_call(call, only=[key for key in call.args if key not in changed_keys])
    listed = ", ".join(_render_change(change) for change in changes[:MAX_ARGS_SHOWN])
    if len(changes) > MAX_ARGS_SHOWN:
        listed += ", …"
    return f"Step {left.number}: same call {same} but the arguments differ: {listed}"


def _explain_result(pair: StepPair) -> str:
    left, right = pair.baseline, pair.candidate
    assert left is not None and right is not None
    index = _first_result_change(left, right)
    assert index is not None
    before, after = _render_result(left.results[index]), _render_result(right.results[index])
    # Results answer the calls in order; a result without its call (never recorded so) still names its tool.
    call = render_call(left.calls[index]) if index < len(left.calls) else left.results[index].name
    return f"Step {left.number}: same call {call}, different result: {before} → {after}"


def _explain_error(number: int, baseline_error: str | None, candidate_error: str | None) -> str:
    if baseline_error is None:
        return f"Step {number}: this run ended with an error: {_error(candidate_error)}"
    if candidate_error is None:
        return f"Step {number}: the baseline ended with an error: {_error(baseline_error)}"
    return f"Step {number}: both runs ended with an error: {_error(baseline_error)} → {_error(candidate_error)}"
