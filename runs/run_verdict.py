"""A stored run's verdict: gather its facts, let `runs.verdict.decide` judge, write the result on the run.

The one place a run's `verdict`, `passed`, `failure_cause`, `failure_reason` and `stages` are set; the worker
(after scoring or an error), the reaper, re-scoring and reviews (runs.reviews.services) all call `apply_verdict`.

A review overrides: `auto_verdict` keeps what the rule decided, and when people reviewed the run its
`human_verdict` (runs.reviews.rule) becomes `verdict` and `passed`, which everything else reads. A run people failed
that the rule did not fail gets the cause `review`, the reviewer's note as its reason and a failed "request
satisfied" stage; one they passed has no failure cause; one both failed keeps the rule's cause and reason, which
say more.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from runs.code_mode.typed_api import RUN_CODE
from runs.models import Run, ScoreResult
from runs.verdict import Check, RunFacts, ToolCallFact, decide, stage_chain

VERDICT_FIELDS = ("verdict", "auto_verdict", "passed", "failure_cause", "failure_reason", "stages", "self_judging")
# A code-mode program is not a tool of the server: its nested calls are recorded after it and judged one by one
# (a `run_code` call EvalHub refused, its arguments not JSON, is the agent's mistake like any other).
_HARNESS_TOOLS = frozenset({RUN_CODE})


def apply_verdict(run: Run, results: Sequence[ScoreResult] = ()) -> None:
    """Set the verdict fields on `run` (not saved) from how it ended and its current score results."""
    facts = run_facts(run, results)
    decision = decide(facts)
    run.verdict = decision.verdict
    run.passed = decision.passed
    run.failure_cause = decision.cause
    run.failure_reason = decision.reason[:1000]
    run.stages = stage_chain(decision, facts)
    run.self_judging = any(
        result.scorer_kind == "judge" and (result.details or {}).get("self_judging") for result in results
    )
    run.auto_verdict = decision.verdict
    if run.human_verdict and decision.verdict:
        _apply_review(run)


def _apply_review(run: Run) -> None:
    human = run.human_verdict
    if human == run.auto_verdict:
        return
    run.verdict, run.passed = human, human == "pass"
    if human == "pass":
        run.failure_cause, run.failure_reason = "", ""
        return
    # The latest review that says "fail": whose word failed the run, and why.
    review = run.reviews.filter(verdict="fail").select_related("reviewer").order_by("-updated_at", "-id").first()
    who = review.reviewer.get_username() if review else "a reviewer"
    note = f": “{review.note}”" if review and review.note else ""
    run.failure_cause, run.failure_reason = "review", f"Reviewed fail by {who}{note}"[:1000]
    # People judged the request not satisfied: that stage is where the run failed (what experiments count).
    run.stages = [
        {**stage, "state": "failed"} if stage.get("stage") == "request satisfied" else stage for stage in run.stages
    ]


def run_facts(run: Run, results: Sequence[ScoreResult]) -> RunFacts:
    settings = run.settings or {}
    return RunFacts(
        status=run.status,
        stop_reason=run.stop_reason or "completed",
        error=run.error if isinstance(run.error, dict) else None,
        checks=tuple(
            Check(
                name=result.scorer_name,
                kind=result.scorer_kind,
                passed=result.passed if result.outcome == "ok" else None,
                gating=result.gating,
                reason=result.reason or result.error,
            )
            for result in results
        ),
        score=run.score,
        threshold=run.threshold,
        calls=tuple(tool_call_facts(run.all_tool_calls, _tool_definitions(run))),
        tool_errors_expected=bool(settings.get("tool_errors_expected")),
        phase=run.phase,
        limits={key: settings.get(key) for key in ("max_turns", "max_tool_calls", "time_limit_seconds")}
        | {key: settings[key] for key in ("token_budget", "cost_budget_usd") if settings.get(key) is not None},
    )


def tool_call_facts(calls: Iterable[dict[str, Any]], tools: dict[str, dict[str, Any]] | None) -> list[ToolCallFact]:
    """Each tool call and who failed it: EvalHub's injected fault ("fault") when one failed it, the agent when its
    call was refused before the tool ran (arguments that are not JSON, a name the run did not offer — invented,
    hidden or renamed by a variant —, arguments the tool's input schema refuses), else the server."""
    facts = []
    for call in calls:
        name = str(call.get("toolName", ""))
        if name in _HARNESS_TOOLS and not call.get("refused"):
            continue
        failed_by = None
        if call.get("isError") and call.get("injectedFault"):
            failed_by = "fault"
        elif call.get("isError"):
            failed_by = "agent" if _agent_fault(call, tools) else "server"
        facts.append(ToolCallFact(tool=name, failed_by=failed_by))
    return facts


def _agent_fault(call: dict[str, Any], tools: dict[str, dict[str, Any]] | None) -> bool:
    # EvalHub answered the call itself (runs.agent.call_tool): the server was never asked. Records from before
    # that marker are judged as they were: the name missing from the listed tools, or `rawArguments`.
    if call.get("refused") or "rawArguments" in call:
        return True
    if tools is None:
        return False
    tool = tools.get(str(call.get("toolName", "")))
    if tool is None:
        return True
    schema = tool.get("inputSchema")
    if not isinstance(schema, dict) or not isinstance(call.get("args"), dict):
        return False
    try:
        return any(True for _ in Draft202012Validator(schema).iter_errors(call["args"]))
    except SchemaError:
        return False


def _tool_definitions(run: Run) -> dict[str, dict[str, Any]] | None:
    """The tools this run was offered, by name; None when it never listed them."""
    if run.tool_snapshot_id is None:
        return None
    tools = run.tool_snapshot.tools if run.tool_snapshot else []
    return {str(tool.get("name")): tool for tool in tools if isinstance(tool, dict)}
