"""Starting, cancelling and reaping runs. HTML views, the API and the CLI all go through these."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.utils import timezone

from evalhub.scenarios.models import Scenario
from evalhub.server_evals.mapping import openai_messages
from evalhub.server_evals.services import SideEffectsUnacknowledged, require_side_effects_acknowledged
from runs.events import publish as events
from runs.experiments.metrics import cells_refresh
from runs.models import ExperimentCell, Run
from runs.quota import QuotaExceeded, reserve_run
from runs.run_choices import AS_WRITTEN, RunChoices
from runs.tasks import execute_run, rescore_runs


def run_start(
    *, scenario: Scenario, user: AbstractBaseUser | AnonymousUser | None, choices: RunChoices = AS_WRITTEN
) -> Run:
    """Reserve quota, create the queued run and queue its task once the transaction commits."""
    with transaction.atomic():
        reserve_run()
        run = run_create(scenario=scenario, user=user, choices=choices)
        events.runs_queued([run])
        return run


def run_create(
    *,
    scenario: Scenario,
    user: AbstractBaseUser | AnonymousUser | None,
    choices: RunChoices = AS_WRITTEN,
    cell: ExperimentCell | None = None,
    trial: int | None = None,
) -> Run:
    """Create the queued run and queue its task on commit. The caller has reserved its quota (run_start one run,
    an experiment all of its trials at once) inside the same transaction, and announces the runs it created
    (events.runs_queued: one write for a whole experiment).

    Raises SideEffectsUnacknowledged for an execution-level scenario whose server's side effects nobody accepted.
    """
    require_side_effects_acknowledged(scenario)
    snapshot = scenario.server.latest_snapshot()
    fault_injection = choices.fault_injection
    run = Run.objects.create(
        scenario=scenario,
        provider=choices.provider or scenario.provider,
        model=choices.model or scenario.model,
        server=scenario.server,
        tool_snapshot=snapshot,
        tools_hash=snapshot.tools_hash if snapshot else "",
        started_by=user if isinstance(user, get_user_model()) else None,
        settings={
            "prompt": scenario.prompt,
            "system_prompt": scenario.system_prompt,
            "max_turns": scenario.max_turns,
            "max_tool_calls": scenario.max_tool_calls,
            "tool_mode": choices.tool_mode or scenario.tool_mode,
            "time_limit_seconds": scenario.time_limit_seconds,
            "max_tokens": scenario.max_tokens,
            "token_budget": scenario.token_budget,
            "cost_budget_usd": str(scenario.cost_budget_usd) if scenario.cost_budget_usd is not None else None,
            "expected_tools": scenario.expected_tools,
            "expected": scenario.expected,
            "conversation": scenario.conversation,
            "pass_threshold": scenario.pass_threshold,
            "tool_errors_expected": scenario.tool_errors_expected,
            "fault_injection": fault_injection if fault_injection is not None else scenario.fault_injection,
            **level_settings(scenario),
            # Resolved by the worker when the run starts (runs/variables.py).
            **({"variables": scenario.variables} if scenario.variables else {}),
            **choices.settings(),
        },
        transcript={"prompt": scenario.prompt, "steps": []},
        experiment_id=cell.experiment_id if cell else None,
        cell=cell,
        trial=trial,
    )
    # Only the id travels: the worker reads everything else from the database.
    transaction.on_commit(lambda: execute_run.delay(run.pk))
    return run


def level_settings(scenario: Scenario) -> dict[str, Any]:
    """What a run needs of the scenario's level: the tool to call directly, or a shipped eval's own messages."""
    settings: dict[str, Any] = {"level": scenario.level}
    if scenario.shipped_eval_id:
        settings["shipped_eval_id"] = scenario.shipped_eval_id
    if scenario.level == Scenario.Level.EXECUTION:
        settings["tool_call"] = scenario.tool_call
    elif scenario.level in (Scenario.Level.RESOURCE, Scenario.Level.PROMPT):
        settings["primitive"] = scenario.primitive
    elif scenario.shipped_eval is not None:
        settings["messages"] = openai_messages(scenario.shipped_eval["input"]["messages"])
    return settings


@dataclass
class BulkStart:
    queued: list[Run] = field(default_factory=list)
    refused: int = 0
    refusal: str = ""

    def summary(self) -> str:
        text = f"Queued {len(self.queued)} run{'s' if len(self.queued) != 1 else ''}."
        if self.refused:
            text += f" Refused {self.refused}: {self.refusal}"
        return text


def runs_start_many(
    *,
    scenarios: Iterable[Scenario],
    user: AbstractBaseUser | AnonymousUser | None,
    choices: RunChoices = AS_WRITTEN,
) -> BulkStart:
    """Start each scenario while quota lasts; report how many were queued and how many refused."""
    result = BulkStart()
    for scenario in scenarios:
        try:
            result.queued.append(run_start(scenario=scenario, user=user, choices=choices))
        except (QuotaExceeded, SideEffectsUnacknowledged) as exc:
            result.refused += 1
            result.refusal = str(exc)
    return result


def run_cancel(*, run: Run) -> Run:
    """A queued run is cancelled at once; a running one stops within a second or so
    (runs/cancelling.py): the call in flight is cut off, and the run keeps its transcript."""
    now = timezone.now()
    if Run.objects.filter(pk=run.pk, status=Run.Status.QUEUED).update(
        status=Run.Status.CANCELLED, stop_reason=Run.StopReason.CANCELLED, finished_at=now, cancel_requested=True
    ):
        run.refresh_from_db()
        events.runs_finished([run.pk])
        cells_refresh(run_ids=[run.pk])
        return run
    Run.objects.filter(pk=run.pk, status=Run.Status.RUNNING).update(cancel_requested=True)
    run.refresh_from_db()
    return run


def runs_rescore(*, run_ids: list[int]) -> int:
    """Queue re-scoring of finished runs in the worker (scorers run user code; never in the web process)."""
    if run_ids:
        Run.objects.filter(pk__in=run_ids).update(rescore_requested_at=timezone.now())
        transaction.on_commit(lambda: rescore_runs.delay(run_ids))
    return len(run_ids)
