"""Evals a server ships, as the evals/list proposal defines them (reference 000): the wire shapes and their rules.

Pure: no I/O. `Connection.list_evals` fetches the pages; `listing(pages)` turns them into the evals EvalHub can
run and the ones it cannot, each with the reason. An eval keeps its wire shape (camelCase keys, as the server
sent it) so what EvalHub stores and shows is exactly what the server declared.
"""

from __future__ import annotations

import json
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


class Cap(TypedDict):
    """What `capped` left out of a listing: kept with the inspection, shown on the page and in the quality report."""

    shipped: int  # every eval the server listed, valid or not
    kept: int
    max_evals: int
    oversized: int  # valid, but larger than max_bytes: listed as invalid instead
    max_bytes: int
    invalid: int  # invalid ones, oversized included (at most max_evals are kept with their reasons)


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


def capped(found: Listing, *, max_evals: int, max_bytes: int) -> tuple[Listing, Cap | None]:
    """At most `max_evals` valid evals, each at most `max_bytes` as compact UTF-8 JSON, and at most `max_evals`
    invalid ones. An eval too large is invalid, with its size as the reason; the rest past the count are dropped.
    The Cap is None when nothing was left out. A server's evals are stored and shown whole, so one shipping
    100,000 of them, or a 10 MB description, must not become a 30 MB row and a 60 MB page."""
    invalid_positions = {bad["position"] for bad in found["invalid"]}
    valid_positions = (
        n for n in range(1, len(found["evals"]) + len(found["invalid"]) + 1) if n not in invalid_positions
    )
    kept: list[dict[str, Any]] = []
    # An invalid eval's id and reason quote what the server sent: bounded too.
    invalid: list[InvalidEval] = [
        {**bad, "id": _clip(bad["id"]), "reason": _clip(bad["reason"], 1000) or ""} for bad in found["invalid"]
    ]
    dropped = oversized = 0
    for position, item in zip(valid_positions, found["evals"], strict=False):
        size = len(json.dumps(item, ensure_ascii=False, separators=(",", ":")).encode())
        if size > max_bytes:
            oversized += 1
            reason = f"it is {size:,} bytes as JSON, over the limit of {max_bytes:,} bytes per eval"
            invalid.append({"id": _clip(item["id"]), "position": position, "reason": reason})
        elif len(kept) < max_evals:
            kept.append(item)
        else:
            dropped += 1
    invalid.sort(key=lambda bad: bad["position"])
    if not (dropped or oversized or len(invalid) > max_evals):
        return {"evals": kept, "invalid": invalid}, None
    cap: Cap = {
        "shipped": len(found["evals"]) + len(found["invalid"]),
        "kept": len(kept),
        "max_evals": max_evals,
        "oversized": oversized,
        "max_bytes": max_bytes,
        "invalid": len(invalid),
    }
    return {"evals": kept, "invalid": invalid[:max_evals]}, cap


def _clip(text: str | None, limit: int = 200) -> str | None:
    return text if text is None or len(text) <= limit else text[: limit - 1] + "…"


def cap_message(cap: Cap) -> str:
    """What `capped` left out, in words: "The server ships 100,000 evals; the first 500 kept (at most 500 …)."."""
    text = f"The server ships {cap['shipped']:,} evals"
    if cap["shipped"] - cap["invalid"] > cap["kept"]:
        text += f"; the first {cap['kept']:,} kept (at most {cap['max_evals']:,} per server)"
    parts = [text + "."]
    if cap["oversized"]:
        parts.append(f"{cap['oversized']:,} larger than {cap['max_bytes']:,} bytes each left out (listed as invalid).")
    if cap["invalid"] > cap["max_evals"]:
        parts.append(f"Only the first {cap['max_evals']:,} of its {cap['invalid']:,} invalid evals are listed.")
    return " ".join(parts)


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
