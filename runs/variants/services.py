"""Suggesting a variant from a cell's failed trials, and running it: the pages and tests go through these."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from evalhub.providers.models import SiteSettings
from runs.experiments.forms import server_tools
from runs.experiments.models import Experiment, ExperimentCell
from runs.experiments.services import ExperimentInvalid, ModelChoice, experiment_start
from runs.models import Run
from runs.variants.suggest import MAX_TRIALS_SHOWN, FailedTrial, Suggestion, suggest_variant
from runs.variants.surface import Variant


def failed_trials(cell: ExperimentCell) -> list[FailedTrial]:
    """The cell's failed trials (its verdict said fail), first ones first: what a suggestion learns from."""
    runs = (
        Run.objects.filter(cell=cell, passed=False)
        .order_by("trial", "pk")
        .only("pk", "failure_reason", "all_tool_calls", "final_text")[:MAX_TRIALS_SHOWN]
    )
    return [FailedTrial(run.pk, run.failure_reason, run.all_tool_calls, run.final_text) for run in runs]


def variant_suggest(*, cell: ExperimentCell, trials: list[FailedTrial]) -> Suggestion:
    """By the generation model chosen in Settings (a template without one)."""
    if cell.scenario is None:
        raise ExperimentInvalid("This cell's scenario was deleted: there is nothing to suggest for.", field="cell")
    site = SiteSettings.load()
    provider = site.generation_provider
    return suggest_variant(
        request=cell.scenario.prompt,
        expected_tools=cell.scenario.expected_tools,
        trials=trials,
        tools=server_tools(cell.scenario.server),
        provider=provider.to_config() if provider else None,
        model=site.generation_model if provider else "",
    )


def variant_run(*, cell: ExperimentCell, variant: Variant, user: AbstractBaseUser | AnonymousUser | None) -> Experiment:
    """The cell again (its scenario, model and mode, as many trials as its experiment ran) as served and under
    `variant`, side by side: one click from a suggestion to its verdict."""
    if cell.scenario is None or cell.provider is None:
        raise ExperimentInvalid("This cell's scenario or provider was deleted: it cannot run again.", field="cell")
    return experiment_start(
        name=f"{variant.name} · {cell.scenario.name}",
        label=f"variant of experiment #{cell.experiment_id}",
        scenarios=[cell.scenario],
        models=[ModelChoice(cell.provider, cell.model, cell.tool_mode)],
        trials=cell.experiment.trials,
        variants=[variant],
        user=user,
    )
