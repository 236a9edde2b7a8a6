"""Judged runs for review tests: a finished run with one gating judge's result, its verdict set by the real rule."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from runs.models import Run, ScoreResult
from runs.run_verdict import VERDICT_FIELDS, apply_verdict
from tests.base import make_demo_server, make_scenario

# Text only the automatic side knows: blind mode must never let it reach the reviewer before they answer.
JUDGE_REASON = "JUDGE-REASON-the-agent-did-it"


def demo_scenario(**overrides: Any) -> Scenario:
    server = McpServer.objects.filter(name="Demo travel server").first() or make_demo_server()
    return make_scenario(server, **overrides)


def judge(run: Run, *, passed: bool, judge_name: str = "Restraint judge") -> Run:
    """Score `run` as a gating judge would and let the verdict rule decide, as the worker does."""
    now = timezone.now()
    run.status, run.stop_reason = Run.Status.DONE, Run.StopReason.COMPLETED
    run.started_at = run.started_at or now
    run.finished_at, run.duration_ms = now, 1200
    run.final_text = run.final_text or "It is 18 °C in Paris."
    run.score = 0.93 if passed else 0.21
    result = ScoreResult.objects.create(
        run=run,
        scorer_name=judge_name,
        scorer_kind="judge",
        score=run.score,
        passed=passed,
        gating=True,
        threshold=0.7,
        reason=JUDGE_REASON,
    )
    apply_verdict(run, [result])
    run.save(
        update_fields=[
            "status",
            "stop_reason",
            "started_at",
            "finished_at",
            "duration_ms",
            "final_text",
            "score",
            *VERDICT_FIELDS,
        ]
    )
    return run


def judged_run(scenario: Scenario, *, passed: bool = True, **fields: Any) -> Run:
    run = Run.objects.create(
        scenario=scenario,
        model=scenario.model,
        settings={"prompt": scenario.prompt, "pass_threshold": 0.7},
        transcript={"prompt": scenario.prompt, "steps": []},
        **fields,
    )
    return judge(run, passed=passed)
