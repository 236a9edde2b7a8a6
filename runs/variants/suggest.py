"""Suggest a variant: from a cell's failed trials, a rewritten description of the tools the agent missed.

With a generation model (Settings → generation model), the model is shown the server's tools, the scenario's
request and expected tools, and what each failed trial did (its calls, their errors, its answer, why it failed),
and answers with JSON only: `{"tools": {"<real tool name>": {"description": "…"}}, "why": "…"}`. Its answer
becomes a variant, checked like any other (runs/variants/surface.py), that the user reviews, edits and runs.
Without one (or with the offline model, which writes no prose), a documented template does the same for each
expected tool that a failed trial did not call: the request is appended to its description as an example of
what the tool is for. A failed model call falls back to the template; the note says so.

Django-free: the caller reads the runs and the settings.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from evalhub.model_client import ProviderClient, ProviderConfig, ProviderError
from runs.variants.surface import Variant, VariantInvalid, check_against, parse_variant
from scorers.judge import is_offline

MAX_TRIALS_SHOWN = 5
_MAX_TOKENS = 1_500
_MAX_TEXT = 600
_MAX_SCHEMA = 2_000
_JSON = re.compile(r"\{.*\}", re.DOTALL)

SYSTEM_PROMPT = """\
You improve the tool surface of an MCP server: the names, descriptions and input schemas an AI agent reads to \
choose a tool and fill its arguments. You are shown the server's tools, a request the agent failed, the tools it \
was expected to call, and what the agent did in each failed trial. Rewrite the description of the tool or tools \
whose wording misled the agent, so that an agent reading it would choose the right tool with the right arguments. \
Keep each description short, factual and true of the tool; do not mention the test.

Reply with ONLY a JSON object: {"tools": {"<tool name>": {"description": "<new description>"}}, "why": "<one \
sentence>"} — tool names exactly as listed."""


@dataclass(frozen=True)
class FailedTrial:
    """What a failed trial did, as the suggestion reads it."""

    run_id: int
    failure_reason: str
    calls: Sequence[Mapping[str, Any]]  # EvalToolCall records: toolName, args, isError, result
    final_text: str


@dataclass(frozen=True)
class Suggestion:
    variant: Variant | None
    source: Literal["model", "template"]
    note: str


def trial_text(trial: FailedTrial) -> str:
    """One failed trial for the prompt (and the page): its calls with their outcome, its answer, why it failed."""
    lines = [f"Trial (run #{trial.run_id}) failed: {trial.failure_reason or 'no reason recorded'}"]
    for call in trial.calls:
        args = json.dumps(call.get("args") or {}, ensure_ascii=False)[:_MAX_TEXT]
        outcome = "error: " + _result_text(call.get("result"))[:_MAX_TEXT] if call.get("isError") else "ok"
        lines.append(f"- called {call.get('toolName')}({args}) → {outcome}")
    if not trial.calls:
        lines.append("- called no tool")
    if trial.final_text:
        lines.append(f"- answered: {trial.final_text[:_MAX_TEXT]}")
    return "\n".join(lines)


def _result_text(result: Any) -> str:
    if isinstance(result, Mapping):
        texts = [str(c.get("text", "")) for c in result.get("content") or [] if isinstance(c, Mapping)]
        return " ".join(texts) or json.dumps(result, ensure_ascii=False)
    return str(result)


def suggest_variant(
    *,
    request: str,
    expected_tools: Sequence[str],
    trials: Sequence[FailedTrial],
    tools: Sequence[Mapping[str, Any]],
    provider: ProviderConfig | None,
    model: str | None,
) -> Suggestion:
    """A variant for the failed `trials` of `request` against the server's `tools` (see the module docstring)."""
    trials = list(trials)[:MAX_TRIALS_SHOWN]
    if provider is None or not model or is_offline(provider, model):
        return _template(request, expected_tools, trials, tools, "No generation model is chosen in Settings, so ")
    try:
        return _from_model(request, expected_tools, trials, tools, provider, model)
    except ProviderError as error:
        return _template(request, expected_tools, trials, tools, f"The model call failed ({error.message}), so ")


def _template(
    request: str,
    expected: Sequence[str],
    trials: Sequence[FailedTrial],
    tools: Sequence[Mapping[str, Any]],
    why: str,
) -> Suggestion:
    by_name = {str(tool["name"]): tool for tool in tools}
    missed = [name for name in expected if name in by_name and any(name not in _called(trial) for trial in trials)]
    if not missed:
        return Suggestion(
            None,
            "template",
            why + "the template had nothing to change: every expected tool was "
            "called in these trials (a description cannot fix what the tool answered).",
        )
    example = " ".join(request.split())[:300]
    changes = {
        name: {
            "description": f"{str(by_name[name].get('description') or '').strip()} Use it for requests such as: "
            f"“{example}”.".strip()
        }
        for name in missed
    }
    variant = parse_variant({"name": f"suggested-{missed[0]}"[:60], "tools": changes})
    return Suggestion(
        variant,
        "template",
        why + "this is a template: it adds the request to the description of "
        f"{', '.join(missed)}, which the failed trials did not call.",
    )


def _called(trial: FailedTrial) -> set[str]:
    return {str(call.get("toolName")) for call in trial.calls}


def _from_model(
    request: str,
    expected: Sequence[str],
    trials: Sequence[FailedTrial],
    tools: Sequence[Mapping[str, Any]],
    provider: ProviderConfig,
    model: str,
) -> Suggestion:
    lines = ["The server's tools:"]
    for tool in tools:
        schema = json.dumps(tool.get("inputSchema") or {}, ensure_ascii=False)[:_MAX_SCHEMA]
        lines.append(f"- {tool['name']}: {tool.get('description') or '(no description)'}\n  inputSchema: {schema}")
    lines += ["", f"The request: {request}", f"Expected tools: {', '.join(expected) or '(none listed)'}", ""]
    lines += [trial_text(trial) for trial in trials]
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(lines)}]
    deadline = time.monotonic() + provider.retry.max_total_seconds
    with ProviderClient(provider) as client:
        answer = client.chat(messages=messages, model=model, max_tokens=_MAX_TOKENS, deadline=deadline).text
    found = _JSON.search(answer or "")
    try:
        data: dict[str, Any] = json.loads(found.group(0)) if found else {}
        changes = {name: {"description": str(change["description"])} for name, change in data["tools"].items()}
        variant = parse_variant({"name": f"suggested-{next(iter(changes))}"[:60], "tools": changes})
        check_against(variant, [str(tool["name"]) for tool in tools])
    except (TypeError, KeyError, AttributeError, StopIteration, json.JSONDecodeError, VariantInvalid) as exc:
        detail = str(exc) if isinstance(exc, VariantInvalid) else "it was not the JSON asked for"
        return Suggestion(None, "model", f"{model} answered, but its suggestion cannot be used: {detail}.")
    why = str(data.get("why") or "").strip()
    return Suggestion(variant, "model", f"Suggested by {model}" + (f": {why}" if why else "."))
