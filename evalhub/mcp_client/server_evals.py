"""Evals a server ships, as the evals/list proposal defines them (reference 000): the wire shapes and their rules.

Pure: no I/O. `Connection.list_evals` fetches the pages; `listing(pages)` turns them into the evals EvalHub can
run and the ones it cannot, each with the reason. An eval keeps its wire shape (camelCase keys, as the server
sent it) so what EvalHub stores and shows is exactly what the server declared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

import mcp_types
from pydantic import ValidationError

from evalhub.mcp_client.classify import describe_validation

LIST_EVALS = "evals/list"
LIST_CHANGED = "notifications/evals/list_changed"
CAPABILITY = "evals"
# input.type is the level: one model turn, one direct tool call, the whole agent loop.
LEVELS = ("invocation", "execution", "scenario")
GRADING_TYPES = ("exact-match", "llm-as-judge")


class InvalidEval(TypedDict):
    id: str | None  # None when the eval has no usable id
    position: int  # 1-based, across every page
    reason: str


class Listing(TypedDict):
    evals: list[dict[str, Any]]
    invalid: list[InvalidEval]


@dataclass(frozen=True)
class RawPage:
    """One evals/list answer: its evals, not yet checked, and the cursor of the next page."""

    result: list[Any]
    next_cursor: str | None

    @classmethod
    def of(cls, result: dict[str, Any]) -> RawPage:
        """Raises ValueError naming what breaks the page's shape (the evals in it are checked one by one later)."""
        evals = result.get("evals")
        if not isinstance(evals, list):
            raise ValueError("'evals' must be a list")
        cursor = result.get("nextCursor")
        if cursor is not None and not isinstance(cursor, str):
            raise ValueError("'nextCursor' must be a string")
        return cls(evals, cursor or None)


def level_of(eval_: dict[str, Any]) -> str:
    """The level of a valid eval (its input.type)."""
    return str(eval_["input"]["type"])


def listing(pages: list[list[Any]]) -> Listing:
    """Every eval of every page, split into the valid ones and the rest with their reasons. A repeated id is
    invalid from its second occurrence: an eval's id is what scenarios stay linked by."""
    evals: list[dict[str, Any]] = []
    invalid: list[InvalidEval] = []
    seen: dict[str, int] = {}
    items = [item for page in pages for item in page]
    for position, item in enumerate(items, start=1):
        raw_id = item.get("id") if isinstance(item, dict) else None
        eval_id = raw_id if isinstance(raw_id, str) and raw_id.strip() else None
        reason = problem(item)
        if reason is None and eval_id in seen:
            reason = f"its id repeats the eval at position {seen[eval_id]}"
        if reason is not None:
            invalid.append({"id": eval_id, "position": position, "reason": reason})
            continue
        assert eval_id is not None
        seen[eval_id] = position
        evals.append(item)
    return {"evals": evals, "invalid": invalid}


def problem(item: Any) -> str | None:
    """Why `item` is not a valid Eval of the proposal, or None."""
    if not isinstance(item, dict):
        return "it is not an object"
    for field in ("id", "name"):
        if not isinstance(item.get(field), str) or not item[field].strip():
            return f"'{field}' must be a non-empty string"
    if "description" in item and not isinstance(item["description"], str):
        return "'description' must be a string"
    grading = item.get("gradingType")
    if grading not in GRADING_TYPES:
        return f"'gradingType' must be one of {', '.join(GRADING_TYPES)} (got {_shown(grading)})"
    input_ = item.get("input")
    if not isinstance(input_, dict):
        return "'input' must be an object"
    level = input_.get("type")
    if level not in LEVELS:
        return f"'input.type' must be one of {', '.join(LEVELS)} (got {_shown(level)})"
    expected = item.get("expected")
    if not isinstance(expected, dict):
        return "'expected' must be an object"
    if expected.get("type") != grading:
        return f"'expected.type' ({_shown(expected.get('type'))}) must match 'gradingType' ({grading})"
    if level == "scenario" and grading == "exact-match":
        return (
            "a scenario eval cannot be graded by exact-match: multi-turn agent trajectories are non-deterministic "
            "(the proposal requires llm-as-judge)"
        )
    return _input_problem(level, input_) or _expected_problem(level, grading, expected)


def _input_problem(level: str, input_: dict[str, Any]) -> str | None:
    if level == "execution":
        if not isinstance(input_.get("toolName"), str) or not input_["toolName"]:
            return "'input.toolName' must be a non-empty string"
        if not isinstance(input_.get("arguments"), dict):
            return "'input.arguments' must be an object"
        return None
    messages = input_.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'input.messages' must be a non-empty list of sampling messages"
    for index, message in enumerate(messages):
        try:
            mcp_types.SamplingMessage.model_validate(message, by_name=False)
        except ValidationError as exc:
            return f"'input.messages[{index}]' is not a sampling message: {describe_validation(exc)}"
    if level == "scenario" and "maxTurns" in input_:
        turns = input_["maxTurns"]
        if isinstance(turns, bool) or not isinstance(turns, int) or turns < 1:
            return f"'input.maxTurns' must be a positive integer (got {_shown(turns)})"
    return None


def _expected_problem(level: str, grading: str, expected: dict[str, Any]) -> str | None:
    if grading == "llm-as-judge":
        if not isinstance(expected.get("rubric"), str) or not expected["rubric"].strip():
            return "'expected.rubric' must be a non-empty string"
        return None
    if level == "invocation":
        if not isinstance(expected.get("toolName"), str) or not expected["toolName"]:
            return "an invocation eval graded by exact-match needs 'expected.toolName'"
        if "arguments" in expected and not isinstance(expected["arguments"], dict):
            return "'expected.arguments' must be an object"
        return None
    if "content" not in expected:
        return "an execution eval graded by exact-match needs 'expected.content'"
    return None


def _shown(value: Any) -> str:
    return repr(value) if value is not None else "nothing"
