"""Experiments for tests: a small plan on the demo server, and trials finished as the worker finishes them."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils import timezone

from evalhub.providers.models import Provider, offline_provider
from evalhub.scenarios.models import Scenario, Tag
from evalhub.servers.models import McpServer
from runs.experiments.metrics import cells_refresh
from runs.experiments.models import Experiment
from runs.experiments.services import ModelChoice, experiment_start
from runs.models import Run
from tests.base import make_demo_server, make_scenario


def tagged_scenarios(count: int, tag: str = "smoke", *, prefix: str = "Scenario") -> list[Scenario]:
    server = McpServer.objects.filter(name="Demo travel server").first() or make_demo_server()
    label = Tag.objects.get_or_create(name=tag)[0]
    scenarios = []
    for index in range(count):
        scenario = make_scenario(server, name=f"{prefix} {index + 1}")
        scenario.tags.add(label)
        scenarios.append(scenario)
    return scenarios


def second_provider(name: str = "Other", models: tuple[str, ...] = ("other-model",)) -> Provider:
    provider = Provider(name=name, base_url="http://127.0.0.1:9/v1", model_names=list(models))
    provider.set_secrets(api_key="", headers={})
    provider.save()
    return provider


def start(
    scenarios: list[Scenario], *, trials: int = 3, models: list[ModelChoice] | None = None, **kw: Any
) -> Experiment:
    models = models or [ModelChoice(offline_provider(), "evalhub-offline")]
    return experiment_start(name="Test", scenarios=scenarios, models=models, trials=trials, user=None, **kw)


def finish(
    run: Run,
    *,
    passed: bool = True,
    score: float | None = None,
    duration_ms: int = 1000,
    cost: str | None = "0.001",
    tokens: tuple[int, int] = (100, 20),
    status: str = "done",
    verdict: str = "",
    cause: str = "",
    self_judging: bool = False,
) -> None:
    """End a trial the way the worker's task does: the run's final fields and verdict, then its cell's refresh.

    The verdict is `passed`'s (an error: the server's, it could not start) unless `verdict` and `cause` say."""
    verdict = verdict or ("pass" if passed and status == "done" else "fail")
    if not cause and verdict != "pass":
        cause = "agent" if status == "done" else "server"
    reasons = {
        "agent": "agent: Missing expected tools: get_weather (0 of 1 called).",
        "server": "server: No such file",
        "provider": "provider: 500 after 3 attempts",
    }
    stage = {"agent": "tool chosen", "server": "connected"}.get(cause, "tool chosen")
    Run.objects.filter(pk=run.pk).update(
        status=status,
        verdict=verdict,
        passed={"pass": True, "fail": False}.get(verdict),
        failure_cause=cause,
        failure_reason=reasons.get(cause, f"{cause}: it failed") if cause else "",
        stages=[]
        if verdict == "pass"
        else [
            {"stage": "connected", "state": "passed"},
            {"stage": stage, "state": "failed" if verdict == "fail" else "undecided"},
        ],
        self_judging=self_judging,
        score=(score if score is not None else (1.0 if passed else 0.0)) if status == "done" else None,
        score_reason="" if passed else "Missing expected tools: get_weather (0 of 1 called).",
        error={"step": "connect", "kind": "spawn_failed", "message": "No such file"} if status == "error" else None,
        duration_ms=duration_ms,
        started_at=timezone.now(),
        finished_at=timezone.now(),
        cost_usd=Decimal(cost) if cost is not None else None,
        input_tokens=tokens[0],
        output_tokens=tokens[1],
    )
    cells_refresh(run_ids=[run.pk])


def trials_of(experiment: Experiment) -> list[Run]:
    return list(Run.objects.filter(experiment=experiment).select_related("cell").order_by("pk"))
