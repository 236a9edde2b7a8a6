"""/experiments: start (all trials admitted against the quota or none), list, read, compare, report, cancel."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema
from ninja.responses import Status

from evalhub.api.common import (
    EXPORT,
    WRITE,
    ApiError,
    ErrorCode,
    Id,
    Page,
    PageParams,
    acting_user,
    get_or_404,
    invalid,
    paginate,
    responses,
)
from evalhub.api_keys.auth import auth_for
from evalhub.permissions import require_change
from runs.experiments.advisory import advisory_judges
from runs.experiments.compare import experiment_compare
from runs.experiments.matrix import experiment_record
from runs.experiments.models import DEFAULT_TRIALS, MAX_TRIALS, MIN_TRIALS, Experiment
from runs.experiments.reports import EXPERIMENT_FORMATS, ExperimentFormat, render_experiment_report
from runs.experiments.services import (
    ExperimentInvalid,
    ExperimentQuotaExceeded,
    experiment_cancel,
    experiment_start_requested,
)
from runs.fault_injection.spec import FAULT_INJECTION_HELP
from runs.models import Run
from runs.quota import quota_status
from runs.reports import render_report, run_record
from runs.reports.records import record_queryset
from runs.tool_usage.services import experiment_tool_usage
from runs.variants.compare import variant_records

router = Router()
REPORT_CONTENT = {
    "application/json": {"schema": {"type": "object"}},
    "text/markdown": {"schema": {"type": "string"}},
    "application/xml": {"schema": {"type": "string"}},
    "text/html": {"schema": {"type": "string"}},
    "text/csv": {"schema": {"type": "string"}},
}


class ModelIn(Schema):
    model: str = Field(..., min_length=1, max_length=200)
    provider_id: Id | None = Field(None, description="Needed only when several providers serve the model.")


class FaultProfileIn(Schema):
    name: str = Field(..., min_length=1, max_length=60)
    fault_injection: dict[str, Any] = Field({}, description=FAULT_INJECTION_HELP)


class ExperimentIn(Schema):
    name: str = Field("", max_length=200)
    label: str = Field("", max_length=200, description="Free text: the server's version, a git sha…")
    scenario_ids: list[Id] = Field([], max_length=500)
    tag: str | None = Field(None, max_length=50, description="Every scenario with this tag (instead of scenario_ids).")
    models: list[ModelIn] = Field(..., min_length=1, max_length=20)
    modes: list[Literal["direct", "code"]] = Field(
        [], max_length=2, description="Run every model in each of these tool modes; empty: each scenario's own."
    )
    fault_profiles: list[FaultProfileIn] = Field(
        [],
        max_length=10,
        description="Run every model under each of these fault profiles (a column each), replacing each scenario's "
        'own fault injection; {"name": "no faults", "fault_injection": {}} is the baseline. Empty: each its own.',
    )
    trials: int = Field(DEFAULT_TRIALS, ge=MIN_TRIALS, le=MAX_TRIALS)
    baseline_id: Id | Literal["pinned"] | None = Field(
        None, description='An experiment id, or "pinned" for the baseline pinned for `tag` (none if nothing is).'
    )
    judges: Literal["all", "calibrated"] | None = Field(
        None,
        description="\"calibrated\": only judges calibrated against people's reviews decide the trials' verdicts; "
        "the others are advisory (shown, never deciding). Default: the site's EVALHUB_GATE_JUDGES.",
    )
    rerun_inconclusive: bool = Field(
        True,
        description="Run an inconclusive trial (provider outage, lost worker, skipped judge) once more; each "
        "re-run takes one run of the daily quota.",
    )
    variants: list[dict[str, Any]] = Field(
        [],
        max_length=10,
        description="Variants of the tool surface, each a column per model beside the server as it is: "
        '{"name", "tools": {tool: {"description", "input_schema"}}, "hide": [tool], "rename": {tool: new name}}, '
        "tools named by their real names. The model is offered the variant; the server receives its own names.",
        examples=[[{"name": "terse-search", "tools": {"search_flights": {"description": "Lists flights."}}}]],
    )


VARIANT = Field("", description='The tool-surface variant of the column (its name); "" = the server as it is.')


class ModelOut(Schema):
    provider_id: int | None
    provider: str
    model: str
    tool_mode: str = Field("", description='"direct" or "code" when the experiment compares modes; else "".')
    variant: str = VARIANT
    fault_profile: str = Field("", description="The fault profile's name when the experiment compares them; else ''.")


class CellOut(Schema):
    id: int
    scenario_id: int | None
    scenario_name: str
    provider_id: int | None
    provider_name: str
    model: str
    tool_mode: str = Field("", description='"direct" or "code" when the experiment compares modes; else "".')
    variant: str = VARIANT
    fault_profile: str = Field("", description="The fault profile's name when the experiment compares them; else ''.")
    column: int = Field(description="The cell's column: its index in the experiment's `models` and `totals`.")
    trials: int
    finished: int
    counted: int = Field(
        description="Decided trials: their run's verdict is pass or fail. Every rate and interval counts these only."
    )
    passes: int
    failed: int
    inconclusive: int = Field(
        description="Trials whose verdict is inconclusive (a provider outage, a lost worker, a skipped judge): "
        "left out of every statistic."
    )
    errors: int = Field(description="Trials whose run ended in an error (their verdict says whose it was).")
    failure_causes: dict[str, int] = Field(
        description="Trials that did not pass, per failure_cause (agent, server, provider, judge, simulator, "
        "budget, harness).",
        examples=[{"server": 5}],
    )
    failed_stages: dict[str, int] = Field(
        description="Failed trials per first failed stage.", examples=[{"result returned": 5}]
    )
    self_judging: bool = Field(description="A trial's judge was the model under test.")
    reruns: int = Field(description="Trials run again because their first run was inconclusive (counted once).")
    pass_rate: float | None
    k: int
    pass_at_k: float | None = Field(description="Chance that at least one of k trials passes: 1 - C(n-c,k)/C(n,k).")
    pass_hat_k: float | None = Field(description="Chance that all k trials pass: C(c,k)/C(n,k).")
    pass_at_1: float | None
    pass_hat_1: float | None
    score_mean: float | None
    score_interval: list[float | None] | None = Field(description="95 % interval of the mean score (Student's t).")
    duration_p50_ms: float | None
    duration_p95_ms: float | None
    tokens_mean: float | None
    cost_usd: float | None
    flaky: bool
    failure: str = Field(description="Why a failing trial failed (the first one).")


class TotalsOut(Schema):
    model: str
    passes: int
    counted: int
    pass_rate: float | None
    pass_rate_interval: list[float] = Field(description="95 % Wilson interval.")
    cost_usd: float | None
    duration_median_ms: float | None


class ProgressOut(Schema):
    finished: int
    total: int


class BaselinePinOut(Schema):
    tag: str
    pinned_by: str | None = Field(description="Who pinned it (null: not recorded, or the account was deleted).")
    pinned_at: datetime


class ExperimentSummaryOut(Schema):
    id: int
    name: str
    label: str
    tag: str
    models: list[ModelOut]
    trials: int
    baseline_id: int | None
    baseline_pin: BaselinePinOut | None = Field(
        description="When the baseline was the tag's pinned one: who pinned it and when, as it stood at the start."
    )
    rerun_inconclusive: bool
    judges: Literal["all", "calibrated"] = Field(description="Which gating judges decided the trials' verdicts.")
    variants: list[dict[str, Any]] = Field([], description="The tool-surface variants it ran, as given.")
    advisory_judges: dict[str, int] = Field(
        description="Judges that scored trials without deciding them (not calibrated), with how many trials; "
        "empty in the list of experiments."
    )
    status: Literal["running", "done", "cancelled"]
    progress: ProgressOut
    created_at: datetime
    finished_at: datetime | None


class CellComparisonOut(Schema):
    scenario_name: str
    model: str
    kind: str = Field(
        description="regressed, fixed, still_failing, still_passing, unchanged, changed_not_significant, new, "
        "removed, undecided (a side finished with only inconclusive trials) or pending"
    )
    verdict: str | None
    description: str
    p_value: float | None = Field(description="Fisher's two-sided p on the decided trials of both sides.")
    baseline: CellOut | None
    candidate: CellOut | None
    delta: dict[str, float | None]


class ComparisonOut(Schema):
    candidate_id: int
    baseline_id: int
    summary: str = Field(examples=["2 regressed, 1 fixed, 14 unchanged; cost \N{MINUS SIGN}12 %; p50 latency +0.4 s"])
    counts: dict[str, int]
    cost_change: float | None
    duration_p50_delta_ms: float | None
    cells: list[CellComparisonOut]


class VariantComparisonOut(ComparisonOut):
    variant: str


class ExperimentOut(ExperimentSummaryOut):
    scenario_ids: list[int]
    cells: list[CellOut]
    totals: list[TotalsOut]
    variant_comparisons: list[VariantComparisonOut] = Field(
        [], description="Each variant's cells against the same scenario, model and mode as served."
    )


class ExperimentStartedOut(ExperimentOut):
    run_ids: list[int] = Field(description="The runs queued, trial by trial across the cells.")


class ToolUsageOut(Schema):
    columns: list[dict[str, Any]] = Field(
        description="Per column: expected and called tools, cells {expected, called, count, run_ids}, confused."
    )
    tools: list[dict[str, Any]] = Field(
        description="Per tool: calls, errors, error_rate, argument_error_calls, argument_error_rate, "
        "argument_errors {argument: {kind: count}}, scenarios, failure_modes {mode: count}."
    )
    never_called: list[str] = Field(description="The server's tools no trial called (coverage).")
    runs: int


class CompareParams(Schema):
    baseline: Id | None = Field(None, description="The baseline experiment; its own baseline when left out.")


class ReportParams(CompareParams):
    format: ExperimentFormat = Field("json", description=f"One of {', '.join(EXPERIMENT_FORMATS)}.")


def _record(experiment: Experiment) -> dict[str, Any]:
    cells = list(experiment.cells.all())
    record = experiment_record(experiment, cells, advisory=advisory_judges(experiment=experiment))
    return {**record, "variant_comparisons": variant_records(experiment, cells)}


def _comparison(candidate: Experiment, baseline_id: int | None, *, required: bool) -> dict[str, Any] | None:
    baseline: Experiment | None = None
    if baseline_id is not None:
        baseline = get_or_404(Experiment.objects.all(), "Experiment", baseline_id)
    if baseline_id is None:
        baseline = candidate.baseline
    if baseline is None:
        if required:
            raise invalid("This experiment has no baseline: pass ?baseline=<experiment id>.", field="baseline")
        return None
    return experiment_compare(candidate=candidate, baseline=baseline).record()


@router.post("", response=responses({201: ExperimentStartedOut}, 404), auth=auth_for(WRITE), summary="Start")
def start_experiment(request: HttpRequest, payload: ExperimentIn) -> Status:
    """Every scenario, model and trial as an ordinary run, admitted whole against today's quota or not at all
    (429 QUOTA_EXCEEDED says how many runs it needs and how many are left)."""
    if bool(payload.scenario_ids) == bool(payload.tag):
        raise invalid("Send either scenario_ids or tag.", fields=["scenario_ids", "tag"])
    try:
        experiment = experiment_start_requested(
            name=payload.name,
            label=payload.label,
            tag=payload.tag or "",
            scenario_ids=payload.scenario_ids,
            models=[(m.model, m.provider_id) for m in payload.models],
            modes=list(dict.fromkeys(payload.modes)),
            fault_profiles=[profile.dict() for profile in payload.fault_profiles],
            trials=payload.trials,
            baseline=payload.baseline_id,
            rerun_inconclusive=payload.rerun_inconclusive,
            judges=payload.judges or "",
            variants=payload.variants,
            user=acting_user(request),
        )
    except ExperimentInvalid as exc:
        raise invalid(str(exc), field=exc.field) from None
    except ExperimentQuotaExceeded as exc:
        status = quota_status()
        details: dict[str, Any] = {
            "needed": exc.needed,
            "remaining": status.remaining,
            "used": status.used,
            "limit": status.limit,
        }
        details["resets_at"] = status.resets_at.isoformat()
        raise ApiError(ErrorCode.QUOTA_EXCEEDED, str(exc), details) from None
    run_ids = list(Run.objects.filter(experiment=experiment).order_by("pk").values_list("pk", flat=True))
    return Status(201, {**_record(experiment), "run_ids": run_ids})


@router.get("", response=responses({200: Page[ExperimentSummaryOut]}), summary="List experiments")
def list_experiments(request: HttpRequest, page: Query[PageParams]) -> dict[str, Any]:
    experiments = Experiment.objects.select_related("baseline_pinned_by").order_by("-created_at", "-id")
    return paginate(experiments, page, out=lambda e: {**experiment_record(e, []), "cells": []})


@router.get("/{int:experiment_id}", response=responses({200: ExperimentOut}, 404), summary="Get an experiment")
def get_experiment(request: HttpRequest, experiment_id: int) -> dict[str, Any]:
    """Status, progress, every cell with its metrics, and the totals per model."""
    return _record(get_or_404(Experiment.objects.select_related("baseline_pinned_by"), "Experiment", experiment_id))


@router.get(
    "/{int:experiment_id}/compare", response=responses({200: ComparisonOut}, 404), summary="Compare with a baseline"
)
def compare_experiment(request: HttpRequest, experiment_id: int, params: Query[CompareParams]) -> dict[str, Any]:
    candidate = get_or_404(Experiment.objects.select_related("baseline"), "Experiment", experiment_id)
    comparison = _comparison(candidate, params.baseline, required=True)
    assert comparison is not None
    return comparison


@router.get("/{int:experiment_id}/tools", response=responses({200: ToolUsageOut}, 404), summary="Tool use")
def experiment_tools(request: HttpRequest, experiment_id: int) -> dict[str, Any]:
    """Which tool was confused: a confusion matrix per column (expected tool against called tool, with run ids),
    and per tool its calls, error rate, argument errors and failure modes; `never_called` is coverage."""
    confusions, usage = experiment_tool_usage(get_or_404(Experiment.objects.all(), "Experiment", experiment_id))
    return {
        "columns": [{"column": c.column, **c.confusion.record()} for c in confusions],
        "tools": [tool.record() for tool in usage.tools],
        "never_called": usage.never_called,
        "runs": usage.runs,
    }


@router.get(
    "/{int:experiment_id}/report",
    response=responses({200: str}, 404),
    auth=auth_for(EXPORT),
    openapi_extra={"responses": {200: {"description": "The report, as a file download.", "content": REPORT_CONTENT}}},
    summary="Report of an experiment",
)
def report_experiment(request: HttpRequest, experiment_id: int, params: Query[ReportParams]) -> HttpResponse:
    """The matrix (and the comparison with the baseline, when there is one) as JSON, Markdown, HTML, JUnit (one
    test case per cell) or CSV (one row per cell); or, as `evalresult`, its runs of shipped evals as the evals/list
    proposal's EvalResult objects."""
    experiment = get_or_404(Experiment.objects.select_related("baseline"), "Experiment", experiment_id)
    comparison = _comparison(experiment, params.baseline, required=False)
    title = f"EvalHub experiment #{experiment.pk}: {experiment.name}"
    if params.format == "evalresult":
        runs = record_queryset(experiment.runs.order_by("created_at", "id"))
        report = render_report([run_record(run) for run in runs], "evalresult", title=title)
    else:
        report = render_experiment_report(_record(experiment), comparison, params.format, title=title)
    return report.response(f"evalhub-experiment-{experiment.pk}")


@router.delete(
    "/{int:experiment_id}", response=responses({200: ExperimentOut}, 404), auth=auth_for(WRITE), summary="Cancel"
)
def cancel_experiment(request: HttpRequest, experiment_id: int) -> dict[str, Any]:
    """Queued trials are cancelled at once, running ones stop within a second or so; finished ones are kept.
    Whoever started the experiment, or staff (403 INSUFFICIENT_PERMISSIONS otherwise)."""
    experiment = get_or_404(Experiment.objects.select_related("created_by"), "Experiment", experiment_id)
    require_change(acting_user(request), experiment)
    if not experiment.is_finished:
        experiment = experiment_cancel(experiment=experiment)
    return _record(experiment)
