"""Label-based LLM judges: a model reads a run's full transcript and picks one label; the label's score is the
run's score.

Labels are written one per line as `LABEL|score` (`GOOD|1`, `BAD|0`); `parse_labels` checks them. Letting
the model pick a named category, rather than a number, avoids its bias towards particular numbers, and the
label → score mapping happens here, in Python, from the label's name alone.

`judge_run` sends the judge's system prompt, the label names and the whole run — prompt, every tool call with
its arguments and result, the final answer — inside an `<untrusted_transcript>` block that the model is told
is data, never instructions (a forged closing tag inside the data is neutralised). It asks for a strict
structured verdict `{"label": <one of the labels>, "reason": <one sentence>}`. An answer that does not parse
or names no label is retried once, with the problem explained; a second bad answer, or a provider error,
makes the outcome "errored" (a judge error: never a pass). Both calls together end within the provider's retry
budget (`RetryPolicy.max_total_seconds`), each one within its per-call timeout. The built-in offline model cannot
judge: the outcome is "skipped" and the caller leaves it out of the mean.

Pure Python + the provider client: the worker and the "Test scorer" view both call it.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from evalhub.model_client import OFFLINE_MODEL, CostBreakdown, ProviderClient, ProviderConfig, ProviderError, TokenUsage
from evalhub.model_client.offline import is_offline_url
from scorers.judge_prompt import MAX_ANSWER_CHARS, build_messages, retry_instruction

SKIPPED_REASON = "skipped — choose a judge model in Settings"
MAX_LABELS = 20
# The labels of a pass/fail rubric judge (an mcptest rubric, a shipped eval's llm-as-judge).
VERDICT_LABELS = "PASS|1\nFAIL|0"
DEFAULT_MAX_TOKENS = 1024

_LABEL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")
_SCORE = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)$")
_FENCE = re.compile(r"^```[\w-]*\s*\n?(.*?)\n?```$", re.DOTALL)


@dataclass(frozen=True)
class Label:
    name: str
    score: float


class LabelError(ValueError):
    """Every problem found in a label list, each starting with its line number."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = list(problems)


def parse_labels(text: str) -> list[Label]:
    """`LABEL|score` lines (blank lines ignored) → labels. Raises LabelError listing every problem."""
    labels: list[Label] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.count("|") != 1:
            problems.append(f"line {number}: write one label per line as LABEL|score, e.g. GOOD|1 (got {line!r})")
            continue
        name, score_text = (part.strip() for part in line.split("|"))
        if not _LABEL_NAME.match(name):
            problems.append(
                f"line {number}: label {name!r} must start with a letter and use only letters, digits, _ and - "
                "(at most 40 characters)"
            )
            continue
        if not _SCORE.match(score_text) or not 0 <= float(score_text) <= 1:
            problems.append(f"line {number}: the score of {name} must be a number from 0 to 1 (got {score_text!r})")
            continue
        if name.lower() in seen:
            problems.append(f"line {number}: label {name} is already used on line {seen[name.lower()]}")
            continue
        seen[name.lower()] = number
        labels.append(Label(name, float(score_text)))
    if not problems and len(labels) < 2:
        problems.append("at least 2 labels are needed, one per line, e.g. GOOD|1 and BAD|0")
    if len(labels) > MAX_LABELS:
        problems.append(f"at most {MAX_LABELS} labels are allowed (got {len(labels)})")
    if problems:
        raise LabelError(problems)
    return labels


def format_labels(labels: Sequence[Label]) -> str:
    return "\n".join(f"{label.name}|{label.score:g}" for label in labels)


@dataclass(frozen=True)
class JudgeOutcome:
    """One judging. `score`/`label` are set only when status is "ok". `usage` and `cost` add up every model
    call (`attempts`); `answers` keeps what the model said, for a judge error's details."""

    status: Literal["ok", "errored", "skipped"]
    score: float | None
    label: str | None
    reason: str
    error: str
    attempts: int
    usage: TokenUsage | None
    cost: CostBreakdown
    duration_ms: float
    answers: tuple[str, ...] = field(default=())

    @property
    def effective_score(self) -> float | None:
        """What the run records: the score; 0 for a judge error; None (left out of the mean) when skipped."""
        if self.status == "skipped":
            return None
        return self.score if self.status == "ok" and self.score is not None else 0.0


def is_offline(provider: ProviderConfig, model: str) -> bool:
    return is_offline_url(provider.base_url) or model == OFFLINE_MODEL


def verdict_format(labels: Sequence[Label]) -> dict[str, Any]:
    """The strict structured-output schema: exactly one label from the set and a reason."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": "verdict",
            "strict": True,
            "schema": {
                "type": "object",
                "properties": {
                    "label": {"type": "string", "enum": [label.name for label in labels]},
                    "reason": {"type": "string"},
                },
                "required": ["label", "reason"],
                "additionalProperties": False,
            },
        },
    }


def judge_run(
    *,
    provider: ProviderConfig,
    model: str,
    system_prompt: str,
    labels: Sequence[Label] | str,
    record: Mapping[str, Any],
    max_tokens: int | None = DEFAULT_MAX_TOKENS,
) -> JudgeOutcome:
    """Judge one run. `record` is the scorer input {input, expected, output: {text, transcript, toolCalls,
    allToolCalls}} (see `scorers.contract.scorer_input`); `labels` are Label objects or `LABEL|score` text."""
    started = time.monotonic()
    if isinstance(labels, str):
        try:
            labels = parse_labels(labels)
        except LabelError as error:
            return _outcome("errored", started, error=f"The judge's labels are invalid: {error}")
    if is_offline(provider, model):
        return _outcome("skipped", started, reason=SKIPPED_REASON)

    messages: list[dict[str, Any]] = build_messages(system_prompt=system_prompt, labels=labels, record=record)
    response_format = verdict_format(labels)
    usages: list[TokenUsage] = []
    costs: list[CostBreakdown] = []
    answers: list[str] = []
    problem = ""
    calls = 0
    # One budget for the whole judging: a retry after a bad answer must not double how long a run's scoring takes.
    deadline = started + provider.retry.max_total_seconds
    with ProviderClient(provider) as client:
        for _attempt in range(2):
            calls += 1
            try:
                result = client.chat(
                    messages=messages,
                    model=model,
                    response_format=response_format,
                    max_tokens=max_tokens,
                    deadline=deadline,
                )
            except ProviderError as error:
                return _outcome(
                    "errored",
                    started,
                    error=f"Judge error: {error.message}",
                    calls=calls,
                    usages=usages,
                    costs=costs,
                    answers=answers,
                )
            if result.usage is not None:
                usages.append(result.usage)
            costs.append(result.cost)
            answers.append(result.text[:MAX_ANSWER_CHARS])
            verdict = parse_verdict(result.text, labels)
            if isinstance(verdict, str):
                problem = verdict
                messages = [
                    *messages,
                    {"role": "assistant", "content": result.text[:MAX_ANSWER_CHARS]},
                    {"role": "user", "content": retry_instruction(problem, labels)},
                ]
                continue
            label, reason = verdict
            return _outcome(
                "ok",
                started,
                score=label.score,
                label=label.name,
                reason=reason,
                calls=calls,
                usages=usages,
                costs=costs,
                answers=answers,
            )
    return _outcome(
        "errored",
        started,
        error=f"Judge error: the model gave no valid verdict in 2 attempts ({problem}).",
        calls=calls,
        usages=usages,
        costs=costs,
        answers=answers,
    )


def parse_verdict(text: str, labels: Sequence[Label]) -> tuple[Label, str] | str:
    """The model's answer → (label, reason), or what is wrong with it. The label must name one of `labels`
    (case is forgiven: names are unique regardless of case); extra keys, such as a "score", are ignored."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group(1).strip()
    try:
        data = json.loads(body)
    except ValueError:
        start, end = body.find("{"), body.rfind("}")
        try:
            data = json.loads(body[start : end + 1]) if 0 <= start < end else None
        except ValueError:
            data = None
    if not isinstance(data, dict):
        return "the answer is not a JSON object" if body else "the answer is empty"
    name, reason = data.get("label"), data.get("reason")
    if not isinstance(name, str):
        return 'the answer has no "label" string'
    by_name = {label.name: label for label in labels}
    label = by_name.get(name.strip()) or next(
        (candidate for candidate in labels if candidate.name.lower() == name.strip().lower()), None
    )
    if label is None:
        return f"{name[:80]!r} is not one of the labels {', '.join(by_name)}"
    if not isinstance(reason, str) or not reason.strip():
        return 'the answer has no "reason" sentence'
    return label, " ".join(reason.split())[:500]


# --- the outcome ---


def _outcome(
    status: Literal["ok", "errored", "skipped"],
    started: float,
    *,
    score: float | None = None,
    label: str | None = None,
    reason: str = "",
    error: str = "",
    calls: int = 0,
    usages: Sequence[TokenUsage] = (),
    costs: Sequence[CostBreakdown] = (),
    answers: Sequence[str] = (),
) -> JudgeOutcome:
    return JudgeOutcome(
        status=status,
        score=score,
        label=label,
        reason=reason,
        error=error,
        attempts=calls,
        usage=_total_usage(usages),
        cost=_total_cost(costs),
        duration_ms=(time.monotonic() - started) * 1000,
        answers=tuple(answers),
    )


def _total_usage(usages: Sequence[TokenUsage]) -> TokenUsage | None:
    if not usages:
        return None
    return TokenUsage(
        input_tokens=sum(usage.input_tokens for usage in usages),
        output_tokens=sum(usage.output_tokens for usage in usages),
        cached_tokens=sum(usage.cached_tokens for usage in usages),
    )


def _total_cost(costs: Sequence[CostBreakdown]) -> CostBreakdown:
    """The sum of every call's cost; unknown if any call's cost is unknown (never a partial sum), zero without
    calls."""
    if not costs:
        return CostBreakdown(Decimal(0), Decimal(0), Decimal(0), source="free")  # no call was made
    if any(cost.total_usd is None for cost in costs):
        return CostBreakdown()
    sources = {cost.source for cost in costs}
    return CostBreakdown(
        input_usd=sum((cost.input_usd or Decimal(0) for cost in costs), Decimal(0)),
        output_usd=sum((cost.output_usd or Decimal(0) for cost in costs), Decimal(0)),
        total_usd=sum((cost.total_usd or Decimal(0) for cost in costs), Decimal(0)),
        source=sources.pop() if len(sources) == 1 else "mixed",
    )
