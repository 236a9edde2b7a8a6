"""The stage chain of a run: connected → tools listed → tool chosen → tool called → result returned → request
satisfied, each passed, failed, undecided (the run was inconclusive there) or not reached."""

from __future__ import annotations

from typing import Any

from runs.verdict.rule import Decision, RunFacts

STAGES = ("connected", "tools listed", "tool chosen", "tool called", "result returned", "request satisfied")
# Stages a run without any tool call never went through; a pass without calls (a restraint test) skips them.
TOOL_STAGES = ("tool chosen", "tool called", "result returned")


def stage_chain(decision: Decision, facts: RunFacts) -> list[dict[str, Any]]:
    if not decision.verdict:
        return []
    if decision.verdict == "pass":
        skipped = not facts.calls
        return [{"stage": s, "state": "skipped" if skipped and s in TOOL_STAGES else "passed"} for s in STAGES]
    at = STAGES.index(decision.stage) if decision.stage in STAGES else len(STAGES) - 1
    state_at = "failed" if decision.verdict == "fail" else "undecided"
    return [
        {"stage": stage, "state": "passed" if index < at else state_at if index == at else "not reached"}
        for index, stage in enumerate(STAGES)
    ]


def first_failed_stage(chain: list[dict[str, Any]]) -> str:
    """The stage a failed run failed at ("" when none failed: it passed, was inconclusive or has no verdict)."""
    return next((str(step["stage"]) for step in chain if step.get("state") == "failed"), "")
