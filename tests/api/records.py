"""Finished runs made directly in the database, for tests that read, filter and report them."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.utils import timezone

from evalhub.scenarios.models import Scenario
from runs.models import Run, ScoreResult


def finished_run(scenario: Scenario, *, score: float | None, passed: bool | None, **fields: Any) -> Run:
    now = timezone.now()
    call = {
        "toolName": "get_weather",
        "args": {"latitude": 48.85},
        "result": {"content": []},
        "isError": False,
        "durationMs": 12,
    }
    values: dict[str, Any] = {
        "scenario": scenario,
        "model": scenario.model,
        "provider": scenario.provider,
        "server": scenario.server,
        "status": Run.Status.DONE,
        "stop_reason": Run.StopReason.COMPLETED,
        "settings": {"prompt": scenario.prompt, "pass_threshold": scenario.pass_threshold},
        "transcript": {"prompt": scenario.prompt, "steps": [], "finalText": "It is sunny."},
        "tool_calls": [call],
        "all_tool_calls": [call],
        "tool_names": ["get_weather"],
        "final_text": "It is sunny.",
        "cost_usd": Decimal("0.0012"),
        "duration_ms": 1500,
        "started_at": now - timedelta(seconds=2),
        "finished_at": now,
        "score": score,
        "passed": passed,
        "verdict": "pass" if passed else "fail",
        "failure_cause": "" if passed else "agent",
        "failure_reason": "" if passed else "agent: never called get_forecast",
        "score_reason": "All expected tools were called." if passed else "Missing expected tools: get_forecast.",
        **fields,
    }
    run = Run.objects.create(**values)
    ScoreResult.objects.create(
        run=run,
        scorer_name="Default scorer",
        scorer_kind="default",
        score=score,
        passed=passed,
        reason=values["score_reason"],
    )
    return run
