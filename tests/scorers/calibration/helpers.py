"""Runs scored for real (V8 code scorers, a scripted judge endpoint) and reviewed by people, for calibration tests.

The runs are made finished in the database (no agent, no MCP server: calibration reads only what scoring stored),
then `runs.scoring.score_run` scores them and `runs.reviews.services.review_save` records people's verdicts.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User
from django.utils import timezone

from evalhub.providers.models import Provider
from evalhub.scenarios.models import Scenario
from runs.models import Run
from runs.reviews.services import review_save
from runs.scoring import score_run

__all__ = ["score_run"]
from scorers.models import Scorer
from scorers.services import scorer_save
from tests.evalhub.model_client.scripted_server import Answer, completion

# Passes a run whose answer says "sunny".
SUNNY = 'async ({ output }) => (output.text.includes("sunny") ? 1 : 0)'


def code_scorer(user: User, *, code: str = SUNNY, name: str = "Says sunny") -> Scorer:
    return scorer_save(scorer=Scorer(name=name, kind=Scorer.Kind.CODE, code=code), user=user)


def judge_scorer(user: User, provider: Provider, *, model: str = "gpt-4o", name: str = "Polite judge") -> Scorer:
    scorer = Scorer(
        name=name,
        kind=Scorer.Kind.JUDGE,
        system_prompt="Did the agent answer politely?",
        labels="GOOD|1\nBAD|0",
        judge_provider=provider,
        judge_model=model,
    )
    return scorer_save(scorer=scorer, user=user)


def judge_answer(label: str) -> Answer:
    return Answer(body=completion(content=json.dumps({"label": label, "reason": f"It is {label}."})))


def finished_run(scenario: Scenario, *, text: str, **fields: Any) -> Run:
    """A run that answered `text` after one get_weather call, not yet scored."""
    now = timezone.now()
    call = {"toolName": "get_weather", "args": {"latitude": 48.85}, "result": {"content": []}, "isError": False}
    values: dict[str, Any] = {
        "scenario": scenario,
        "model": scenario.model,
        "provider": scenario.provider,
        "server": scenario.server,
        "status": Run.Status.DONE,
        "stop_reason": Run.StopReason.COMPLETED,
        "settings": {"prompt": scenario.prompt, "pass_threshold": 0.5},
        "transcript": {"prompt": scenario.prompt, "steps": [], "finalText": text},
        "tool_calls": [call],
        "all_tool_calls": [call],
        "tool_names": ["get_weather"],
        "final_text": text,
        "duration_ms": 1500,
        "started_at": now - timedelta(seconds=2),
        "finished_at": now,
        **fields,
    }
    return Run.objects.create(**values)


def scored(scenario: Scenario, *, text: str, **fields: Any) -> Run:
    run = finished_run(scenario, text=text, **fields)
    score_run(run)
    return Run.objects.get(pk=run.pk)


def reviewed(run: Run, reviewer: User, verdict: str) -> Run:
    review_save(run=run, reviewer=reviewer, verdict=verdict)
    return Run.objects.get(pk=run.pk)


def rescore(run: Run) -> Run:
    run = Run.objects.get(pk=run.pk)
    score_run(run)
    return Run.objects.get(pk=run.pk)
