"""A stored run's fault timeline and its "Fault recovery" check, from its records (the pure `recovery` module
does the work). The check is a gating ScoreResult like the expectations' (runs.scoring adds it)."""

from __future__ import annotations

import time
from typing import Any

from runs.fault_injection.recovery import evaluate_recovery, fault_timeline
from runs.fault_injection.spec import InvalidFaults, parse_plan
from runs.models import Run, ScoreResult

RECOVERY = "Fault recovery"


def run_fault_timeline(run: Run) -> list[dict[str, Any]]:
    """Each faulted tool call of `run`, when, and what the agent did next (empty for a run without faults)."""
    if not any(isinstance(call, dict) and call.get("injectedFault") for call in run.all_tool_calls):
        return []
    started = run.started_at or run.created_at
    return fault_timeline(
        calls=run.all_tool_calls,
        model_calls=run.model_calls,
        steps=(run.transcript or {}).get("steps", []),
        started_ms=int(started.timestamp() * 1000),
    )


def recovery_result(run: Run) -> ScoreResult | None:
    """The run's recovery expectations checked, or None when its fault injection sets none."""
    try:
        plan = parse_plan((run.settings or {}).get("fault_injection"))
    except InvalidFaults:
        return None  # the pipeline ended such a run in an error before it acted: there is nothing to check
    if not plan.recovery.is_set:
        return None
    started = time.perf_counter()
    checked = evaluate_recovery(
        plan.recovery, timeline=run_fault_timeline(run), calls=run.all_tool_calls, final_text=run.final_text
    )
    return ScoreResult(
        run=run,
        scorer_name=RECOVERY,
        scorer_kind="recovery",
        score=checked.score,
        passed=checked.passed,
        gating=True,
        reason=checked.reason,
        details={"checks": [check.to_dict() for check in checked.checks]},
        duration_ms=round((time.perf_counter() - started) * 1000),
    )
