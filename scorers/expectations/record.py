"""The scorer record `{input, expected, output, run}` read once into what expectations check.

Tool calls come from `output.allToolCalls`, so calls nested inside another call (code mode) count like any other;
`Call.index` is a call's 0-based position there, the number a diff entry's `call_index` refers to. Messages name
calls as the run page labels them ("call 2", "call 1.1" for a program's first call: runs/code_mode/numbering.py).

Turn scoping: when the calls or the transcript carry user turns, an expectation with `turn` sees only that user
turn's calls and answer. A step's turn is its own `userTurn`, else the transcript's `userTurns` say it (each
turn's `firstStep` starts it; turn 0 is the scenario's prompt). A call's own `userTurn` wins; otherwise the steps'
`toolCalls` give the turn of each top-level call in order, and a nested call belongs to the turn of the top-level
call before it. A record without any turn is one prompt, and `turn` is ignored rather than failing every check.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from runs.code_mode import CODE
from runs.code_mode.numbering import labels_for
from runs.code_mode.typed_api import RUN_CODE
from scorers.expectations.matchers.base import Snapshots
from scorers.expectations.values import is_number


@dataclass(frozen=True)
class Call:
    """One EvalToolCall, with the fields checks read."""

    index: int
    tool: str
    args: Any
    result: Any
    is_error: bool
    schema_validation: Mapping[str, Any] | None
    turn: int | None = None
    # What the run page calls it (runs/code_mode/numbering.py): "2", or "1.1" for a program's first call.
    numbered: str = ""

    @property
    def number(self) -> str:
        """`call 2`, `call 1.1`: how messages name a call, as the run page labels it."""
        return f"call {self.numbered or self.index + 1}"

    @property
    def label(self) -> str:
        return f"{self.number} ({self.tool})"


@dataclass(frozen=True)
class RunRecord:
    calls: tuple[Call, ...]
    final_text: str
    run: Mapping[str, Any]
    answers_by_turn: Mapping[int, str] = field(default_factory=dict)
    has_turns: bool = False
    # Not part of the record: the snapshots `$snapshot` reads and reports to, carried here so every kind reaches
    # them without a parameter of its own (evaluate_expectations sets them).
    snapshots: Snapshots = field(default_factory=Snapshots, compare=False)

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> RunRecord:
        output = _mapping(record.get("output"))
        transcript = _mapping(output.get("transcript"))
        steps = _steps_with_turns(transcript)
        top_level = [call for call in _list(output.get("toolCalls")) if isinstance(call, Mapping)]
        # A record from before nested calls existed may lack allToolCalls: its toolCalls are then all the calls.
        all_calls = output.get("allToolCalls")
        raw_calls = [c for c in all_calls if isinstance(c, Mapping)] if isinstance(all_calls, list) else top_level
        turns = _call_turns(raw_calls, top_level, steps)
        numbers = labels_for(top_level, raw_calls)
        calls = tuple(
            _call(i, raw, turn, numbers[i]) for i, (raw, turn) in enumerate(zip(raw_calls, turns, strict=True))
        )
        if _mapping(record.get("run")).get("toolMode") == CODE:
            # Expectations are about the server's tools: run_code is the harness's wrapper around the calls a
            # program made, which allToolCalls holds beside it. Indexes stay positions in allToolCalls.
            calls = tuple(call for call in calls if call.tool != RUN_CODE)
        text, transcript_text = output.get("text"), transcript.get("finalText")
        final_text = text if isinstance(text, str) else transcript_text if isinstance(transcript_text, str) else ""
        return cls(
            calls=calls,
            final_text=final_text,
            run=_mapping(record.get("run")),
            answers_by_turn=_answers_by_turn(steps),
            has_turns=any(turn is not None for turn in turns) or any(_turn(step) is not None for step in steps),
        )

    def calls_in(self, turn: int | None) -> tuple[Call, ...]:
        if turn is None or not self.has_turns:
            return self.calls
        return tuple(call for call in self.calls if call.turn == turn)

    def answer_in(self, turn: int | None) -> str:
        if turn is None or not self.has_turns:
            return self.final_text
        return self.answers_by_turn.get(turn, "")

    def run_number(self, *keys: str) -> float | None:
        """A number under `run` (`run_number("usage", "totalTokens")`), or None when absent or not a number."""
        value: Any = self.run
        for key in keys:
            value = value.get(key) if isinstance(value, Mapping) else None
        return value if is_number(value) else None

    def total_tokens(self) -> float | None:
        total = self.run_number("usage", "totalTokens")
        if total is not None:
            return total
        parts = self.run_number("usage", "inputTokens"), self.run_number("usage", "outputTokens")
        return None if None in parts else sum(part or 0 for part in parts)


def _call(index: int, raw: Mapping[str, Any], turn: int | None, numbered: str) -> Call:
    result = raw.get("result")
    result_error = isinstance(result, Mapping) and result.get("isError") is True
    validation = raw.get("schemaValidation")
    return Call(
        index=index,
        tool=str(raw.get("toolName", "")),
        args=raw.get("args"),
        result=result,
        is_error=raw.get("isError") is True or result_error,
        schema_validation=validation if isinstance(validation, Mapping) else None,
        turn=turn,
        numbered=numbered,
    )


def _call_turns(
    calls: Sequence[Mapping[str, Any]], top_level: Sequence[Mapping[str, Any]], steps: Sequence[Mapping[str, Any]]
) -> list[int | None]:
    step_turns = [_turn(step) for step in steps for _ in _list(step.get("toolCalls"))]
    turns: list[int | None] = []
    next_top, current = 0, None
    for call in calls:
        own = _turn(call)
        if next_top < len(top_level) and call == top_level[next_top]:
            step_turn = step_turns[next_top] if next_top < len(step_turns) else None
            current = own if own is not None else step_turn
            next_top += 1
        turns.append(own if own is not None else current)
    return turns


def _steps_with_turns(transcript: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The transcript's steps, each with its `userTurn` when the transcript's `userTurns` say where turns start."""
    steps = [step for step in _list(transcript.get("steps")) if isinstance(step, Mapping)]
    starts = sorted(
        (turn["firstStep"], turn["index"])
        for turn in _list(transcript.get("userTurns"))
        if isinstance(turn, Mapping) and _is_int(turn.get("firstStep")) and _is_int(turn.get("index"))
    )
    if not starts:
        return steps
    with_turns: list[Mapping[str, Any]] = []
    for position, step in enumerate(steps):
        started = [index for first, index in starts if first <= position]
        turn = _turn(step)
        if turn is None and started:
            turn = started[-1]
        with_turns.append({**step, "userTurn": turn} if turn is not None else step)
    return with_turns


def _answers_by_turn(steps: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    """The last text each user turn's steps produced: that turn's answer."""
    answers: dict[int, str] = {}
    for step in steps:
        turn, text = _turn(step), step.get("text")
        if turn is not None and isinstance(text, str) and text.strip():
            answers[turn] = text
    return answers


def _turn(item: Mapping[str, Any]) -> int | None:
    turn = item.get("userTurn")
    return turn if _is_int(turn) else None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
