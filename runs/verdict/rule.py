"""`decide`: a run's verdict, failure cause and one-line reason from its facts (see the package docstring)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from runs.verdict.errors import error_cause, error_stage

# runs.fault_injection.connection's phase while an injected fault holds a call (kept here: the rule stays pure).
INJECTED_PHASE = "injected fault:"

# "review": people failed a run the rule did not fail (runs.run_verdict sets it; `decide` never returns it).
CAUSES = ("agent", "server", "provider", "judge", "simulator", "budget", "harness", "review")
VERDICTS = ("pass", "fail", "inconclusive")
# Stop reasons that end a run before the agent finished: the run did not do what was asked.
BUDGET_STOPS = {
    "max_turns": "the {max_turns}-turn limit",
    "max_tool_calls": "the {max_tool_calls}-tool-call limit",
    "time_limit": "the {time_limit_seconds} s time limit",
    "token_budget": "the {token_budget}-token budget",
    "cost_budget": "the ${cost_budget_usd} cost budget",
}


@dataclass(frozen=True)
class Check:
    """One scorer's result as the rule sees it. `passed` is None when it was skipped or errored."""

    name: str
    kind: str  # "default", "expectations", "code" or "judge"
    passed: bool | None
    gating: bool
    reason: str = ""


@dataclass(frozen=True)
class ToolCallFact:
    tool: str
    # "server" when the tool answered with an error the agent did not cause, "agent" when the agent's call was
    # refused (unknown tool, arguments that are not JSON or break the tool's input schema), "fault" when a fault
    # EvalHub injected failed it (runs/fault_injection: nobody's failure), None when it succeeded.
    failed_by: str | None = None


@dataclass(frozen=True)
class RunFacts:
    status: str  # the run's status: done, error, cancelled (queued and running have no verdict yet)
    stop_reason: str = "completed"
    error: dict[str, Any] | None = None  # {"step", "kind", "message"}
    checks: tuple[Check, ...] = ()
    score: float | None = None
    threshold: float = 0.7
    calls: tuple[ToolCallFact, ...] = ()
    tool_errors_expected: bool = False
    phase: str = ""  # what the worker was doing when the run stopped ("tool call get_weather")
    limits: dict[str, Any] = field(default_factory=dict)  # the run's budgets, for the budget sentence


@dataclass(frozen=True)
class Decision:
    verdict: str  # "pass", "fail", "inconclusive", or "" while the run has none (queued, running, cancelled)
    cause: str = ""  # one of CAUSES when the run did not pass
    reason: str = ""
    stage: str = ""  # the first failed (or undecided) stage, when the run did not pass

    @property
    def passed(self) -> bool | None:
        return {"pass": True, "fail": False}.get(self.verdict)


def decide(facts: RunFacts) -> Decision:
    if facts.status == "error" and facts.error:
        return _errored(facts.error)
    if facts.status != "done":
        return Decision("")
    budget = _budget_stop(facts)
    if budget is not None:
        return budget
    failed = [check for check in facts.checks if check.gating and check.passed is False]
    if failed:
        return _failure(facts, failed[0].reason or f"{failed[0].name} failed")
    undecided = [check for check in facts.checks if check.gating and check.passed is None]
    if undecided:
        check = undecided[0]
        return Decision(
            "inconclusive", "judge", f"judge: {check.name} could not decide: {check.reason}", "request satisfied"
        )
    if facts.score is None:
        return Decision(
            "inconclusive",
            "judge",
            "judge: every scorer was skipped or advisory, so nothing decided",
            "request satisfied",
        )
    if facts.score < facts.threshold:
        return _failure(facts, f"the score {facts.score:.2f} is below the threshold {facts.threshold:.2f}")
    return Decision("pass")


def _errored(error: dict[str, Any]) -> Decision:
    step, kind = str(error.get("step", "")), str(error.get("kind", ""))
    cause = error_cause(step, kind)
    message = str(error.get("message", "")).strip().splitlines()[0] if error.get("message") else kind
    verdict = "fail" if cause in ("server", "agent") else "inconclusive"
    stage = error_stage(step, cause)
    return Decision(verdict, cause, f"{cause}: {message}", stage)


def _budget_stop(facts: RunFacts) -> Decision | None:
    limit = BUDGET_STOPS.get(facts.stop_reason)
    if limit is None:
        return None
    if facts.stop_reason == "time_limit" and facts.phase.startswith(INJECTED_PHASE):
        # The harness held the call on purpose: its test outlasted the run, which says nothing of agent or server.
        what = facts.phase.removeprefix(INJECTED_PHASE).strip()
        reason = f"harness: the injected {what} was still running at " + limit.format_map(_Limits(facts.limits))
        return Decision(
            "inconclusive", "harness", reason + "; lower the request timeout or raise the limit", "result returned"
        )
    if facts.stop_reason == "time_limit" and facts.phase.startswith("tool call"):
        tool = facts.phase.removeprefix("tool call").strip() or "a tool"
        reason = f"server: {tool} was still running at " + limit.format_map(_Limits(facts.limits))
        return Decision("fail", "server", reason, "result returned")
    return Decision(
        "fail", "budget", "budget: stopped at " + limit.format_map(_Limits(facts.limits)), "request satisfied"
    )


class _Limits(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"


def _failure(facts: RunFacts, why: str) -> Decision:
    """A failed gate or a low score: the server's when one of its tools answered with an error, else the agent's."""
    server_errors = Counter(call.tool for call in facts.calls if call.failed_by == "server")
    if server_errors and not facts.tool_errors_expected:
        totals = Counter(call.tool for call in facts.calls)
        tool, errors = server_errors.most_common(1)[0]
        return Decision(
            "fail", "server", f"server: {tool} returned an error on {errors} of {totals[tool]} calls", "result returned"
        )
    if not facts.calls:
        return Decision("fail", "agent", f"agent: called no tool; {why}", "tool chosen")
    if any(call.failed_by == "agent" for call in facts.calls) and not facts.tool_errors_expected:
        refused = [call.tool for call in facts.calls if call.failed_by == "agent"]
        return Decision("fail", "agent", f"agent: {len(refused)} call(s) refused ({refused[0]}); {why}", "tool called")
    return Decision("fail", "agent", f"agent: {why}", "request satisfied")
