"""Starting and cancelling experiments, and pinning baselines. The UI, the API and the CLI all go through these.

An experiment is a plan plus ordinary runs: each trial is created by `runs.services.run_create`, the same path a
single run takes, so the worker, scoring, reports and the Runs list need nothing new.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.utils import timezone

from evalhub.providers.models import Provider, ensure_builtin_providers
from evalhub.scenarios.models import Scenario
from evalhub.server_evals.services import SideEffectsUnacknowledged, require_side_effects_acknowledged
from runs.events import publish as events
from runs.experiments.metrics import cells_refresh
from runs.experiments.models import JUDGES, MAX_TRIALS, MIN_TRIALS, BaselinePin, Experiment, ExperimentCell
from runs.fault_injection.profiles import parse_profiles
from runs.models import Run
from runs.quota import QuotaExceeded, QuotaStatus, countdown, reserve_runs
from runs.run_choices import RunChoices
from runs.services import run_create
from runs.variants.surface import Variant, VariantInvalid, check_against, parse_variant

User = AbstractBaseUser | AnonymousUser | None


class ExperimentInvalid(ValueError):
    """What was asked for cannot be run; `field` names the input at fault, the message says what to do."""

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


class ExperimentQuotaExceeded(QuotaExceeded):
    """The whole experiment does not fit in what is left of today's quota; nothing was started."""

    def __init__(self, status: QuotaStatus, *, needed: int, now: datetime | None = None) -> None:
        self.status, self.needed = status, needed
        left = status.remaining
        Exception.__init__(
            self,
            f"This experiment needs {needed} run{'s' if needed != 1 else ''}; "
            f"{left} {'is' if left == 1 else 'are'} left today; the quota resets at 00:00 UTC, "
            f"in {countdown(status.resets_at - (now or timezone.now()))}.",
        )


@dataclass(frozen=True)
class ModelChoice:
    """A column of the matrix: a model, the tool mode it runs in ("" = each scenario's own), the tool-surface
    variant it is offered ("" = the server as it is) and the fault profile it runs under ("" = each scenario's own
    fault injection, runs/fault_injection/profiles.py)."""

    provider: Provider
    model: str
    tool_mode: str = ""
    variant: str = ""
    fault_profile: str = ""
    fault_injection: dict[str, Any] | None = None

    @property
    def record(self) -> dict[str, object]:
        record: dict[str, object] = {
            "provider_id": self.provider.pk,
            "provider": self.provider.name,
            "model": self.model,
        }
        if self.tool_mode:
            record["tool_mode"] = self.tool_mode
        if self.variant:
            record["variant"] = self.variant
        if self.fault_profile:
            record |= {"fault_profile": self.fault_profile, "fault_injection": self.fault_injection}
        return record

    @property
    def key(self) -> tuple[int, str, str, str]:
        """What makes two chosen columns the same before variants are added (with_variants)."""
        return (self.provider.pk, self.model, self.tool_mode, self.fault_profile)


def with_modes(models: list[ModelChoice], modes: list[str]) -> list[ModelChoice]:
    """Each model once per tool mode (direct, code), so the same scenarios compare both; no modes: as chosen."""
    return [replace(choice, tool_mode=mode) for choice in models for mode in modes] if modes else models


def with_variants(models: list[ModelChoice], variants: list[Variant]) -> list[ModelChoice]:
    """Each column once as served and once per variant, side by side, so each variant's cell sits next to the
    cell it is compared with (runs.experiments.variant_compare)."""
    names = ["", *(variant.name for variant in variants)]
    return [replace(choice, variant=name) for choice in models for name in names]


def variants_check(*, variants: list[Variant], scenarios: list[Scenario]) -> None:
    """Distinct names, and every tool a variant names known to each scenario's server (its latest tool snapshot;
    a server never connected to yet is checked when its runs list its tools: unknown names change nothing)."""
    names = [variant.name for variant in variants]
    if dup := next((name for name in names if names.count(name) > 1), None):
        raise ExperimentInvalid(
            f"variants: two variants are named “{dup}”; name each one differently.", field="variants"
        )
    servers = {scenario.server_id: scenario.server for scenario in scenarios}
    for server in servers.values():
        snapshot = server.latest_snapshot()
        if snapshot is None:
            continue
        for index, variant in enumerate(variants):
            try:
                check_against(variant, snapshot.tool_names, where=f"variants[{index}]")
            except VariantInvalid as exc:
                raise ExperimentInvalid(f"{exc} (server “{server.name}”)", field="variants") from None


def with_fault_profiles(models: list[ModelChoice], value: Any) -> list[ModelChoice]:
    """Each column once per fault profile, so every model meets the same faults; no profiles: as chosen. Raises
    ExperimentInvalid naming the place of a profile's mistake."""
    profiles, errors = parse_profiles(value)
    if errors:
        raise ExperimentInvalid("; ".join(errors), field="fault_profiles")
    return [
        replace(choice, fault_profile=profile.name, fault_injection=profile.fault_injection)
        for choice in models
        for profile in profiles
    ] or models


def model_resolve(*, model: str, provider_id: int | None = None) -> ModelChoice:
    """The provider serving `model`: the one named, else the only one that serves it."""
    model = model.strip()
    if provider_id is not None:
        provider = Provider.objects.filter(pk=provider_id).first()
        if provider is None:
            raise ExperimentInvalid(f"No provider has id {provider_id}.", field="models")
        if model not in provider.model_names:
            raise ExperimentInvalid(f"The provider {provider.name!r} does not serve {model!r}.", field="models")
        return ModelChoice(provider, model)
    ensure_builtin_providers()
    serving = [p for p in Provider.objects.order_by("pk") if model in p.model_names]
    if not serving:
        raise ExperimentInvalid(
            f"No provider serves the model {model!r}; add it to a provider in Settings → Providers.", field="models"
        )
    if len(serving) > 1:
        names = ", ".join(f"{p.name} (id {p.pk})" for p in serving)
        raise ExperimentInvalid(f"Several providers serve {model!r}: {names}; give provider_id.", field="models")
    return ModelChoice(serving[0], model)


def scenarios_select(*, tag: str = "", scenario_ids: list[int] | None = None) -> list[Scenario]:
    """Every scenario with `tag`, or exactly the ones picked (all must exist), in name order: the matrix's rows."""
    scenarios = Scenario.objects.select_related("server", "provider").order_by("name", "pk")
    if tag:
        found = list(scenarios.filter(tags__name=tag.strip().lower()))
        if not found:
            raise ExperimentInvalid(f"No scenario has the tag {tag!r}.", field="tag")
        return found
    wanted = list(dict.fromkeys(scenario_ids or []))
    if not wanted:
        raise ExperimentInvalid("Pick at least one scenario, or a tag.", field="scenarios")
    found = list(scenarios.filter(pk__in=wanted))
    missing = sorted(set(wanted) - {s.pk for s in found})
    if missing:
        raise ExperimentInvalid(f"No scenario has id {missing[0]}.", field="scenarios")
    return found


def experiment_start(
    *,
    name: str,
    scenarios: list[Scenario],
    models: list[ModelChoice],
    trials: int,
    user: User,
    label: str = "",
    tag: str = "",
    baseline: Experiment | BaselinePin | None = None,
    rerun_inconclusive: bool = True,
    judges: str = "",
    variants: list[Variant] | None = None,
) -> Experiment:
    """Reserve every trial's quota at once (all or nothing), then create the cells and queue the runs. With
    `rerun_inconclusive`, a trial whose run is inconclusive runs once more (runs.experiments.reruns). `judges`
    ("all", "calibrated"; empty: the site's EVALHUB_GATE_JUDGES) is which gating judges decide its trials' verdicts.

    `baseline` is an experiment, or the tag's pin: then who pinned it and when are recorded with the experiment.
    `variants` (runs/variants) add a column per model for each, beside the server as it is.

    Runs are created trial by trial across all cells (trial 1 of every cell, then trial 2, …), so a worker
    taking them in order gives every cell its first result early and partial results are representative.
    """
    if not MIN_TRIALS <= trials <= MAX_TRIALS:
        raise ExperimentInvalid(f"Trials must be between {MIN_TRIALS} and {MAX_TRIALS}, got {trials}.", field="trials")
    if not scenarios:
        raise ExperimentInvalid("Pick at least one scenario, or a tag.", field="scenarios")
    if not models:
        raise ExperimentInvalid("Pick at least one model.", field="models")
    judges = judges or django_settings.EVALHUB_GATE_JUDGES
    if judges not in JUDGES:
        raise ExperimentInvalid(f"judges: “{judges}” is not a choice; send “all” or “calibrated”.", field="judges")
    for scenario in scenarios:
        try:
            require_side_effects_acknowledged(scenario)
        except SideEffectsUnacknowledged as exc:
            raise ExperimentInvalid(f"Scenario “{scenario.name}”: {exc}", field="scenarios") from None
    variants = variants or []
    variants_check(variants=variants, scenarios=scenarios)
    models = list({c.key: c for c in models}.values())
    if variants:
        models = with_variants(models, variants)
    surfaces = {variant.name: variant.record() for variant in variants}
    needed = len(scenarios) * len(models) * trials
    with transaction.atomic():
        try:
            reserve_runs(needed)
        except QuotaExceeded as exc:
            raise ExperimentQuotaExceeded(exc.status, needed=needed) from None
        experiment = Experiment.objects.create(
            name=name.strip() or _default_name(tag, scenarios),
            label=label.strip(),
            tag=tag.strip().lower(),
            scenario_ids=[s.pk for s in scenarios],
            model_list=[choice.record for choice in models],
            variant_list=list(surfaces.values()),
            trials=trials,
            baseline=baseline.experiment if isinstance(baseline, BaselinePin) else baseline,
            baseline_pinned_by=baseline.pinned_by if isinstance(baseline, BaselinePin) else None,
            baseline_pinned_at=baseline.pinned_at if isinstance(baseline, BaselinePin) else None,
            rerun_inconclusive=rerun_inconclusive,
            judges=judges,
            total_runs=needed,
            created_by=user if isinstance(user, get_user_model()) else None,
        )
        cells = ExperimentCell.objects.bulk_create(
            ExperimentCell(
                experiment=experiment,
                scenario=scenario,
                scenario_name=scenario.name,
                provider=choice.provider,
                provider_name=choice.provider.name,
                model=choice.model,
                tool_mode=choice.tool_mode,
                variant=choice.variant,
                fault_profile=choice.fault_profile,
                fault_injection=choice.fault_injection,
                row=row,
                column=column,
                trials=trials,
            )
            for row, scenario in enumerate(scenarios)
            for column, choice in enumerate(models)
        )
        by_position = {(cell.row, cell.column): cell for cell in cells}
        queued = [
            run_create(
                scenario=scenario,
                user=user,
                choices=RunChoices(
                    model=choice.model,
                    provider=choice.provider,
                    tool_mode=choice.tool_mode,
                    judges=judges,
                    variant=surfaces.get(choice.variant),
                    fault_injection=choice.fault_injection,
                ),
                cell=by_position[(row, column)],
                trial=trial,
            )
            for trial in range(1, trials + 1)
            for row, scenario in enumerate(scenarios)
            for column, choice in enumerate(models)
        ]
        events.runs_queued(queued)
    return experiment


def experiment_start_requested(
    *,
    tag: str = "",
    scenario_ids: list[int] | None = None,
    models: list[tuple[str, int | None]],
    trials: int,
    modes: list[str] | None = None,
    fault_profiles: list[dict[str, Any]] | None = None,
    user: User,
    name: str = "",
    label: str = "",
    baseline: int | str | None = None,
    rerun_inconclusive: bool = True,
    judges: str = "",
    variants: list[dict[str, object]] | None = None,
) -> Experiment:
    """experiment_start from what the API and the CLI receive: names and ids. `baseline` is an experiment id,
    "pinned" (the tag's pinned baseline, none if nothing is pinned yet) or None. `variants` are variant JSON
    (runs/variants/surface.py)."""
    tag = tag.strip().lower()
    parsed = variants_parse(variants or [])
    scenarios = scenarios_select(tag=tag, scenario_ids=scenario_ids)
    choices = with_modes(
        [model_resolve(model=model, provider_id=provider_id) for model, provider_id in models], modes or []
    )
    choices = with_fault_profiles(choices, fault_profiles)
    chosen: Experiment | BaselinePin | None = None
    if baseline == "pinned":
        if not tag:
            raise ExperimentInvalid('"pinned" needs a tag: baselines are pinned per tag.', field="baseline_id")
        chosen = pin_of(tag)
    elif baseline is not None:
        chosen = Experiment.objects.filter(pk=int(baseline)).first()
        if chosen is None:
            raise ExperimentInvalid(f"No experiment has id {baseline} (the baseline).", field="baseline_id")
    return experiment_start(
        name=name,
        label=label,
        tag=tag,
        scenarios=scenarios,
        models=choices,
        trials=trials,
        baseline=chosen,
        rerun_inconclusive=rerun_inconclusive,
        judges=judges,
        variants=parsed,
        user=user,
    )


def variants_parse(data: list[Any], *, where: str = "variants") -> list[Variant]:
    """Variants from their JSON, each error naming its place (`variants[1].rename.x`)."""
    try:
        return [parse_variant(item, where=f"{where}[{index}]") for index, item in enumerate(data)]
    except VariantInvalid as exc:
        raise ExperimentInvalid(str(exc), field="variants") from None


def _default_name(tag: str, scenarios: list[Scenario]) -> str:
    what = f"#{tag}" if tag else (scenarios[0].name if len(scenarios) == 1 else f"{len(scenarios)} scenarios")
    return f"{what} · {timezone.now():%Y-%m-%d %H:%M}"


def experiment_cancel(*, experiment: Experiment) -> Experiment:
    """Queued trials are cancelled at once, running ones stop at their next step; finished ones are kept."""
    now = timezone.now()
    with transaction.atomic():
        runs = Run.objects.filter(experiment=experiment)
        queued = list(runs.filter(status=Run.Status.QUEUED).values_list("pk", flat=True))
        runs.filter(pk__in=queued, status=Run.Status.QUEUED).update(
            status=Run.Status.CANCELLED, stop_reason=Run.StopReason.CANCELLED, finished_at=now, cancel_requested=True
        )
        runs.filter(status=Run.Status.RUNNING).update(cancel_requested=True)
        Experiment.objects.filter(pk=experiment.pk, status=Experiment.Status.RUNNING).update(
            status=Experiment.Status.CANCELLED, finished_at=now
        )
    events.runs_finished(queued)
    cells_refresh(cell_ids=experiment.cells.values_list("pk", flat=True))
    experiment.refresh_from_db()
    return experiment


def baseline_pin(*, experiment: Experiment, user: User) -> BaselinePin:
    """Make this experiment the baseline of its tag: `--baseline pinned` and new experiments compare with it.
    The caller checks evalhub.permissions.require_pin first; the pin records who pinned it and when."""
    if not experiment.tag:
        raise ExperimentInvalid(
            "Only an experiment started by tag can be pinned as that tag's baseline.", field="experiment"
        )
    pin, _ = BaselinePin.objects.update_or_create(
        tag=experiment.tag,
        defaults={"experiment": experiment, "pinned_by": user if isinstance(user, get_user_model()) else None},
    )
    return pin


def pin_of(tag: str) -> BaselinePin | None:
    """The tag's pin, with its experiment and who pinned it."""
    return BaselinePin.objects.select_related("experiment", "pinned_by").filter(tag=tag.strip().lower()).first()


def pinned_baseline(tag: str) -> Experiment | None:
    pin = pin_of(tag)
    return pin.experiment if pin else None
