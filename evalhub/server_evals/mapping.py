"""A shipped eval (the evals/list proposal, reference 000) as an EvalHub scenario: pure, no database.

The three levels map onto a scenario's `level`: invocation (one model turn, tools offered but not executed),
execution (one tool called directly, no model) and scenario (the agent loop, up to the eval's maxTurns).
exact-match grading becomes expectations EvalHub already checks — `tool_called` with the expected arguments as a
partial match, or `tool_result` whose content equals the expected content — and llm-as-judge a PASS|1 / FAIL|0
label judge built from the rubric, told what it sees at that level.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from evalhub.mcp_client.server_evals import level_of
from scorers.expectations.proposal import literal

TAGS = ("server-evals",)
# What the judge grades at each level, ahead of the rubric.
JUDGE_SEES = {
    "invocation": "one model turn: which tool the model chose and with which arguments (the tool was not executed)",
    "execution": "the result of one tool called directly with fixed arguments (no model was involved)",
    "scenario": "the full transcript of an agent completing a task with the server's tools",
}


def scenario_fields(eval_: Mapping[str, Any], *, default_max_turns: int) -> dict[str, Any]:
    """The scenario fields that come from the eval (the caller adds name, server, provider and model)."""
    level = level_of(dict(eval_))
    input_ = eval_["input"]
    fields: dict[str, Any] = {
        "level": level,
        "description": eval_.get("description", ""),
        "shipped_eval_id": eval_["id"],
        "shipped_eval": dict(eval_),
        "shipped_eval_removed_at": None,
        "expectations": expectations(eval_),
        "tool_call": None,
        "expected_tools": [],
    }
    if level == "execution":
        fields["tool_call"] = {"tool": input_["toolName"], "arguments": input_["arguments"]}
        fields["prompt"] = execution_prompt(input_["toolName"], input_["arguments"])
        fields["max_turns"] = 1
    else:
        fields["prompt"] = prompt_of(input_["messages"])
        fields["max_turns"] = 1 if level == "invocation" else input_.get("maxTurns", default_max_turns)
    return fields


def expectations(eval_: Mapping[str, Any]) -> list[dict[str, Any]]:
    """exact-match grading as EvalHub expectations; none for llm-as-judge (its judge grades)."""
    expected = eval_["expected"]
    if eval_["gradingType"] != "exact-match":
        return []
    description = "Graded by the server's exact-match eval"
    if level_of(dict(eval_)) == "invocation":
        check: dict[str, Any] = {"kind": "tool_called", "tool": expected["toolName"]}
        if expected.get("arguments"):
            check["args"] = literal(expected["arguments"])
        return [{**check, "description": f"{description}: calls {expected['toolName']} with the given arguments"}]
    tool = eval_["input"]["toolName"]
    return [
        content_equals(tool, expected["content"], f"{description}: {tool}'s result content equals the expected content")
    ]


def content_equals(tool: str, content: Any, description: str) -> dict[str, Any]:
    """The expectation that `tool`'s result content is exactly `content` (exact-match execution grading)."""
    return {
        "kind": "tool_result",
        "tool": tool,
        "path": "$.content",
        "equals": literal(content),
        "description": description,
    }


def execution_prompt(tool: str, arguments: Mapping[str, Any]) -> str:
    """What an execution-level scenario shows as its prompt (and scorers get as `input`): the call it makes."""
    return f"Call {tool} with {json.dumps(arguments, sort_keys=True)}"


def judge_prompt(eval_: Mapping[str, Any]) -> str:
    """The system prompt of the llm-as-judge eval's label judge."""
    level = level_of(dict(eval_))
    return (
        f"You grade {JUDGE_SEES[level]}, against the rubric the MCP server's author shipped with this eval "
        f"({eval_['id']!r}).\n\nRubric:\n{eval_['expected']['rubric'].strip()}\n\n"
        "Answer PASS when the rubric is met and FAIL when it is not."
    )


def prompt_of(messages: list[dict[str, Any]]) -> str:
    """The eval's messages as one prompt: a single user message is its text; a longer exchange is kept readable
    (the run sends the messages themselves, runs/levels.py)."""
    texts = [(message["role"], _text(message["content"])) for message in messages]
    if len(texts) == 1 and texts[0][0] == "user":
        return texts[0][1]
    return "\n\n".join(f"{role}: {text}" for role, text in texts)


def openai_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The eval's sampling messages as chat messages (text parts; other content is described, not sent)."""
    return [{"role": message["role"], "content": _text(message["content"])} for message in messages]


def _text(content: Any) -> str:
    parts = content if isinstance(content, list) else [content]
    texts = []
    for part in parts:
        if isinstance(part, Mapping) and part.get("type") == "text":
            texts.append(str(part.get("text", "")))
        elif isinstance(part, Mapping):
            texts.append(f"[{part.get('type', 'content')} not shown]")
    return "\n".join(texts)
