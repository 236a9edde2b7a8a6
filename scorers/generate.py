"""The magic wand: scorer code from a plain-English description.

With a real model, the model gets the scorer contract (the product's ScorerOutput / TranscriptData /
EvalToolCall types and the function signature, with the product's example), the server's tools and the
description, and answers with the function only. The answer is dry-run in the sandbox on a record without
tool calls; code that does not parse or is not a function goes back to the model once, with the error.
With the offline model or no model, documented templates write the code (`scorers.code_templates`). The model
calls together end within the provider's retry budget (`RetryPolicy.max_total_seconds`), each within its per-call
timeout; a call that does not falls back to the templates like any failed call.

Nothing is saved here: the user reviews the code and presses Save.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from evalhub.model_client import ProviderClient, ProviderConfig, ProviderError
from scorers.code_templates import template_code
from scorers.contract import (
    EXAMPLE_DESCRIPTION,
    EXAMPLE_SCORER,
    RECORD_NOTES,
    SCORER_SIGNATURE,
    SCORER_TYPES,
    sample_input,
)
from scorers.generate_examples import Example, examples_block
from scorers.judge import is_offline
from scorers.sandbox import ErrorKind, ScoringOutcome, run_scorer

MAX_TOOLS = 100
_MAX_SCHEMA_CHARS = 3_000
_MAX_TOKENS = 2_000
_FENCED = re.compile(r"```[ \t]*(?:javascript|js|typescript|ts)?[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)
_UNUSABLE = frozenset({ErrorKind.SYNTAX_ERROR, ErrorKind.NOT_A_FUNCTION, ErrorKind.SOURCE_TOO_LARGE})

SYSTEM_PROMPT = f"""\
You write code scorers for EvalHub, a tool that evaluates MCP servers. After an AI agent was given a \
scenario's prompt and the server's tools, a code scorer grades the run. It is a JavaScript function

  {SCORER_SIGNATURE}

that returns a number between 0 and 1: 1 = correct, 0 = completely wrong, values in between = partially \
correct. `input` is the scenario's prompt (a string), `expected` the scenario's expected outcome (any JSON, or \
null) and `output` is a ScorerOutput:

{SCORER_TYPES}
{RECORD_NOTES}

Rules:
- Plain JavaScript (no TypeScript annotations), one function expression, nothing before or after it.
- No require/import, timers, network or files: they do not exist in the sandbox.
- Read tool calls from allToolCalls; guard against missing fields (`tc.args || {{}}`).
- Always return a number from 0 to 1. console.log may explain the score.
- Reply with ONLY the function — no explanation and no markdown fences.

Example description:
{EXAMPLE_DESCRIPTION}

Example scorer:
{EXAMPLE_SCORER}"""


@dataclass(frozen=True)
class Generated:
    code: str
    source: Literal["model", "template"]
    note: str


def generate_scorer(
    *,
    description: str,
    tools: Sequence[Mapping[str, Any]],
    provider: ProviderConfig | None,
    model: str | None,
    examples: Sequence[Example] = (),
) -> Generated:
    """Scorer code for `description`. `tools` are the server's MCP tool definitions (name, description,
    inputSchema); `examples` are reviewed runs the model learns from (scorers.generate_examples). Without a model,
    or with the offline model, the code comes from templates, which cannot read examples. A failing model
    call falls back to the templates too; the note says so."""
    if provider is None or not model or is_offline(provider, model):
        code, note = template_code(description, tools)
        if examples:
            note += " Templates cannot learn from reviewed runs: choose a generation model in Settings for that."
        return Generated(code, "template", note)
    try:
        return _from_model(description=description, tools=tools, provider=provider, model=model, examples=examples)
    except ProviderError as error:
        code, note = template_code(description, tools)
        return Generated(code, "template", f"The model call failed ({error.message}), so this is a template. {note}")


def extract_code(answer: str) -> str:
    """The function from a model's answer: the first fenced code block if there is one, else the whole text."""
    fenced = _FENCED.search(answer)
    code = fenced.group(1) if fenced else answer
    return code.strip() + "\n"


def _from_model(
    *,
    description: str,
    tools: Sequence[Mapping[str, Any]],
    provider: ProviderConfig,
    model: str,
    examples: Sequence[Example],
) -> Generated:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": _request(description, tools, examples)},
    ]
    deadline = time.monotonic() + provider.retry.max_total_seconds
    with ProviderClient(provider) as client:
        answer = client.chat(messages=messages, model=model, max_tokens=_MAX_TOKENS, deadline=deadline).text
        code = extract_code(answer)
        outcome = run_scorer(code, sample_input())
        retried = False
        if outcome.error_kind in _UNUSABLE:
            retried = True
            messages += [
                {"role": "assistant", "content": answer},
                {
                    "role": "user",
                    "content": f"That code cannot be used as a scorer:\n{outcome.error}\n"
                    "Reply with the corrected function only.",
                },
            ]
            answer = client.chat(messages=messages, model=model, max_tokens=_MAX_TOKENS, deadline=deadline).text
            code = extract_code(answer)
            outcome = run_scorer(code, sample_input())
    return Generated(code, "model", _model_note(model, outcome, retried=retried))


def _model_note(model: str, outcome: ScoringOutcome, *, retried: bool) -> str:
    if outcome.error_kind in _UNUSABLE:
        return f"Generated by {model}, but it still cannot be used — fix it before saving. {outcome.error}"
    note = f"Generated by {model}"
    note += " (its first answer did not compile and was corrected)." if retried else "."
    if not outcome.ok:
        first_line = outcome.error.splitlines()[0] if outcome.error else outcome.error_kind
        note += f" On a run that called no tool it fails: {first_line}"
    return note


def _request(description: str, tools: Sequence[Mapping[str, Any]], examples: Sequence[Example] = ()) -> str:
    lines = ["The MCP server's tools:"]
    for tool in list(tools)[:MAX_TOOLS]:
        schema = json.dumps(tool.get("inputSchema") or {}, ensure_ascii=False)
        if len(schema) > _MAX_SCHEMA_CHARS:
            schema = schema[:_MAX_SCHEMA_CHARS] + "…"
        summary = " ".join(str(tool.get("description") or "").split())[:500]
        lines.append(f"- {tool.get('name')}: {summary}\n  inputSchema: {schema}")
    if len(tools) > MAX_TOOLS:
        lines.append(f"(and {len(tools) - MAX_TOOLS} more tools)")
    if not tools:
        lines.append("(no tools)")
    if examples:
        lines += ["", examples_block(examples)]
    lines += ["", "Write the scorer for this description:", description.strip()]
    return "\n".join(lines)
