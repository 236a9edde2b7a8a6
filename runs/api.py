"""/runs: start runs in bulk, list them with the Runs page's filters, read one in full, cancel, and reports."""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Annotated, Any, Literal

from django.db.models import F
from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema
from ninja.responses import Status
from pydantic import BeforeValidator

from evalhub.api.common import (
    EXPORT,
    WRITE,
    ApiError,
    ErrorCode,
    Id,
    Page,
    PageParams,
    acting_user,
    invalid,
    not_found,
    responses,
)
from evalhub.api_keys.auth import auth_for
from evalhub.permissions import require_change
from evalhub.scenarios.models import Scenario
from evalhub.server_evals.services import side_effects_settle
from runs.filters import RunFilters
from runs.heartbeat import runs_reap_stale
from runs.models import Run
from runs.queue_estimate import queue_estimate
from runs.quota import quota_status
from runs.reports import FORMATS, ReportFormat, render_report
from runs.reports.records import record_queryset, run_record, run_summary, summary_queryset
from runs.reviews.api import ReviewOut
from runs.run_choices import RunChoices
from runs.services import run_cancel, runs_start_many

router = Router()


def _iso_date(value: Any) -> Any:
    # pydantic would also take a number of seconds since 1970 ("0" is 1970-01-01): only YYYY-MM-DD is a day here.
    if isinstance(value, str) and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValueError("Use a date like 2026-01-31.")
    return value


IsoDate = Annotated[date, BeforeValidator(_iso_date)]
RunStatus = Literal["queued", "running", "done", "error", "cancelled"]
MAX_REPORT_RUNS = 5000
REPORT_CONTENT = {
    # A report object; format=evalresult is a list of EvalResult objects.
    "application/json": {"schema": {"type": ["object", "array"]}},
    "text/markdown": {"schema": {"type": "string"}},
    "application/xml": {"schema": {"type": "string"}},
    "text/html": {"schema": {"type": "string"}},
    "text/csv": {"schema": {"type": "string"}},
}
REPORT_OPENAPI = {"responses": {200: {"description": "The report, as a file download.", "content": REPORT_CONTENT}}}


class QueueOut(Schema):
    position: int = Field(description="1 for the next run to start; runs start oldest first.")
    estimated_start: datetime | None = Field(
        description="When it is likely to start; null until some run has finished (nothing to estimate from)."
    )
    basis: str = Field(description="How the estimate is made.")


class RunSummaryOut(Schema):
    id: int
    scenario_id: int
    scenario_name: str
    status: str
    stop_reason: str
    model: str
    tool_names: list[str]
    cost_usd: float | None = Field(description="None while unknown (a model without a known price).")
    duration_ms: int | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    score: float | None
    passed: bool | None = Field(description="True on pass, false on fail, null when inconclusive or unfinished.")
    verdict: str = Field(
        description='"pass", "fail", "inconclusive", or "" while the run has none. The human verdict when people '
        "reviewed the run, else the automatic one."
    )
    auto_verdict: str = Field(description="What the verdict rule decided from the record and the scorers.")
    human_verdict: str | None = Field(
        description='"pass" or "fail" by most reviewers (a tie goes to the latest review); null when unreviewed.'
    )
    failure_cause: str = Field(
        description='Whose failure, when the run did not pass: "agent", "server", "provider", "judge", '
        '"simulator", "budget", "harness", or "review" (people failed it, the rule did not).'
    )
    failure_reason: str = Field(description="One line for a person, e.g. 'server: get_weather returned an error…'.")
    pass_threshold: float
    replay: dict[str, Any] | None = Field(
        description='A replay (runs answered from a cassette): {"mode": "cassette" (offline) | "live" (the live '
        'server) | "fork", "of": the recorded run\'s id, "fork"?: {"at_step", "change"}}; null for a live run. Pass '
        "rates say how many replays they count."
    )
    queue: QueueOut | None = Field(None, description="Only while the run is queued: its place and likely start.")


class ScoreOut(Schema):
    scorer_id: int | None
    scorer_name: str
    scorer_kind: str
    scorer_version: int | None
    score: float | None
    passed: bool | None
    gating: bool = Field(description="A gating result fails the run when it fails; an advisory one only counts.")
    advisory_because: str = Field(
        description="Why a judge that would have gated was advisory: the judges gate trusts only calibrated judges "
        "and this one was not (it then neither gated nor counted in the run's score). Empty otherwise."
    )
    version: str | None = Field(
        description="Fingerprint of what scored (code; a judge's prompt, labels and model; the expectations), as "
        "GET /scorers/{id}/calibration names versions; null for results scored before fingerprints were kept."
    )
    judge_model: str = Field(description='The model that judged; "" for other kinds.')
    cached_verdict: bool = Field(
        description="A judge's verdict kept from an earlier judging of the same transcript by the same judge version "
        "and model (a re-score, a replay): the judge was not asked again."
    )
    threshold: float | None
    outcome: str = Field(description='"ok", "errored" (counts as 0) or "skipped".')
    reason: str
    label: str
    error: str
    duration_ms: int
    created_at: datetime


class RunOut(RunSummaryOut):
    provider_name: str | None
    server_id: int | None
    server_name: str | None
    tools_hash: str
    settings: dict[str, Any]
    started_by: str | None
    worker: str
    cancel_requested: bool
    transcript: dict[str, Any]
    tool_calls: list[dict[str, Any]]
    all_tool_calls: list[dict[str, Any]]
    final_text: str
    model_calls: list[dict[str, Any]]
    server_start: dict[str, Any] | None = Field(
        description='How long the run waited for its MCP server: {"ms", "transport", "warm"} and, for a stdio '
        'server lent warm (the server\'s warm_reuse), {"use", "recycleAfter"}: the run was the process\'s use-th. '
        "null before the run connected."
    )
    simulator_calls: list[dict[str, Any]] = Field(
        description="A simulated user's model calls (a conversation): tokens and cost apart from the agent's."
    )
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    error: dict[str, Any] | None
    score_reason: str
    stages: list[dict[str, str]] = Field(
        description="connected → tools listed → tool chosen → tool called → result returned → request satisfied, "
        "each {stage, state}: passed, failed, undecided, not reached or skipped."
    )
    self_judging: bool = Field(description="A gating judge's model is the model under test.")
    scores: list[ScoreOut]
    reviews: list[ReviewOut] = Field(description="People's reviews of the run, oldest first.")


class BulkStartIn(Schema):
    scenario_ids: list[Id] = Field([], max_length=500)
    tag: str | None = Field(None, max_length=50, description="Run every scenario with this tag.")
    model: str | None = Field(None, max_length=200, description="Override every scenario's model.")
    judges: Literal["all", "calibrated"] | None = Field(
        None,
        description="\"calibrated\": only judges calibrated against people's reviews decide these runs' verdicts; "
        "the others are advisory. Default: the site's EVALHUB_GATE_JUDGES.",
    )
    snapshots: Literal["update", "ci"] | None = Field(
        None,
        description='$snapshot checks: "update" re-records every snapshot the runs reach (and passes them); "ci" '
        "fails a check that would record a first snapshot. Default: a first value is recorded, later ones compared.",
    )
    acknowledge_side_effects: bool = Field(
        False,
        description="Accept that execution-level scenarios call their server's tools for real (recorded per server "
        "with who and when). Without it, such a scenario on a server nobody acknowledged answers 409 CONFLICT.",
    )


class BulkStartOut(Schema):
    queued: int
    refused: int
    refusal: str = Field(description="Why runs were refused (the quota), empty when none were.")
    runs: list[RunSummaryOut]


class RunFiltersIn(Schema):
    """The Runs page's filters."""

    scenario: Id | None = Field(None, description="Scenario id.")
    server: Id | None = Field(None, description="Server id: the runs made against this MCP server.")
    status: RunStatus | None = None
    passed: bool | None = None
    verdict: Literal["pass", "fail", "inconclusive"] | None = Field(None, description="The runs with this verdict.")
    cause: Literal["agent", "server", "provider", "judge", "simulator", "budget", "harness", "review"] | None = Field(
        None, description="The runs that did not pass for this cause."
    )
    model: str | None = Field(None, max_length=200)
    tag: str | None = Field(None, max_length=50)
    date_from: IsoDate | None = Field(None, description="Created on or after this day (UTC), YYYY-MM-DD.")
    date_to: IsoDate | None = Field(None, description="Created on or before this day (UTC), YYYY-MM-DD.")
    ids: list[Id] = Field([], max_length=500, description="Only these runs (repeat the parameter).")

    def apply(self, runs: Any) -> Any:
        filters = RunFilters(
            scenario=str(self.scenario) if self.scenario is not None else "",
            status=self.status or "",
            passed="" if self.passed is None else ("yes" if self.passed else "no"),
            verdict=self.verdict or "",
            cause=self.cause or "",
            model=self.model or "",
            tag=self.tag or "",
            date_from=self.date_from.isoformat() if self.date_from else "",
            date_to=self.date_to.isoformat() if self.date_to else "",
        )
        runs = filters.apply(runs)
        if self.server is not None:
            runs = runs.filter(server_id=self.server)
        return runs.filter(pk__in=self.ids) if self.ids else runs


SORT_FIELDS = {"created_at": "created_at", "score": "score", "duration": "duration_ms", "cost": "cost_usd"}


class RunSortIn(Schema):
    # Literal: a bad value answers 400 VALIDATION_ERROR naming the parameter and listing the allowed values.
    sort: Literal["created_at", "score", "duration", "cost"] = Field("created_at", description="What to sort by.")
    order: Literal["asc", "desc"] = Field("desc", description="Runs without a score, duration or cost come last.")

    def apply(self, runs: Any) -> Any:
        field = F(SORT_FIELDS[self.sort])
        key = field.asc(nulls_last=True) if self.order == "asc" else field.desc(nulls_last=True)
        # The id breaks ties in the same direction so pages neither repeat nor skip runs.
        return runs.order_by(key, "id" if self.order == "asc" else "-id")


def with_queue(record: dict[str, Any], run: Run) -> dict[str, Any]:
    estimate = queue_estimate(run)
    return {**record, "queue": estimate.as_dict() if estimate else None}


class ReportParams(Schema):
    format: ReportFormat = Field("json", description=f"One of {', '.join(FORMATS)}.")
    min_score: float | None = Field(None, ge=0, le=1, description="Also fail runs scoring below this.")


class SetReportParams(ReportParams):
    limit: int = Field(500, ge=1, le=MAX_REPORT_RUNS, description="At most this many runs, newest first.")


def _get(run_id: int, *, full: bool = True) -> Run:
    runs = record_queryset(Run.objects.all()) if full else summary_queryset(Run.objects.all())
    run = runs.filter(pk=run_id).first()
    if run is None:
        raise not_found("Run", run_id)
    if run.status == Run.Status.RUNNING and runs_reap_stale():
        run = runs.get(pk=run_id)
    return run


def _download(records: list[dict[str, Any]], params: ReportParams, *, title: str, stem: str) -> HttpResponse:
    return render_report(records, params.format, title=title, min_score=params.min_score).response(stem)


@router.post("", response=responses({201: BulkStartOut}, 404), auth=auth_for(WRITE), summary="Start runs in bulk")
def start_runs(request: HttpRequest, payload: BulkStartIn) -> Status:
    """Start `scenario_ids`, or every scenario tagged `tag`, while today's quota lasts.

    Answers 201 with how many runs were queued and refused; 429 QUOTA_EXCEEDED when none could be queued.
    """
    if bool(payload.scenario_ids) == bool(payload.tag):
        raise invalid("Send either scenario_ids or tag.", fields=["scenario_ids", "tag"])
    scenarios = Scenario.objects.select_related("server", "provider").order_by("name", "pk")
    if payload.tag:
        scenarios = scenarios.filter(tags__name=payload.tag.strip().lower())
        if not scenarios:
            raise invalid(f"No scenario has the tag {payload.tag!r}.", field="tag")
    else:
        wanted = list(dict.fromkeys(payload.scenario_ids))
        scenarios = scenarios.filter(pk__in=wanted)
        missing = sorted(set(wanted) - {s.pk for s in scenarios})
        if missing:
            raise ApiError(ErrorCode.RESOURCE_NOT_FOUND, f"No scenario with id {missing[0]}.", {"missing_ids": missing})
    model = (payload.model or "").strip()
    if model:
        unserved = [s.name for s in scenarios if model not in s.provider.model_names]
        if unserved:
            raise invalid(
                f"The provider of {unserved[0]!r} does not serve {model!r}.", field="model", scenarios=unserved
            )
    side_effects_settle(scenarios=scenarios, acknowledge=payload.acknowledge_side_effects, user=acting_user(request))
    choices = RunChoices(model=model, judges=payload.judges or "", snapshots=payload.snapshots or "")
    result = runs_start_many(scenarios=scenarios, user=acting_user(request), choices=choices)
    if not result.queued and result.refused:
        status = quota_status()
        details = {"queued": 0, "refused": result.refused, "used": status.used, "limit": status.limit}
        raise ApiError(ErrorCode.QUOTA_EXCEEDED, result.refusal, {**details, "resets_at": status.resets_at.isoformat()})
    by_id = {s.pk: s for s in scenarios}
    for run in result.queued:
        run.scenario = by_id[run.scenario_id]
    return Status(
        201,
        {
            "queued": len(result.queued),
            "refused": result.refused,
            "refusal": result.refusal,
            "runs": [with_queue(run_summary(run), run) for run in result.queued],
        },
    )


@router.get("", response=responses({200: Page[RunSummaryOut]}), summary="List runs")
def list_runs(
    request: HttpRequest, filters: Query[RunFiltersIn], sort: Query[RunSortIn], page: Query[PageParams]
) -> dict[str, Any]:
    """Newest first unless `sort`/`order` say otherwise; a queued run carries its `queue` place and likely start."""
    runs_reap_stale()
    runs = sort.apply(filters.apply(summary_queryset(Run.objects.all())))
    total = runs.count()
    items = [with_queue(run_summary(run), run) for run in runs[page.offset : page.offset + page.limit]]
    return {"items": items, "total": total, "limit": page.limit, "offset": page.offset}


@router.get(
    "/report",
    response=responses({200: str}),
    auth=auth_for(EXPORT),
    openapi_extra=REPORT_OPENAPI,
    summary="Report or CSV of a set of runs",
)
def report_runs(request: HttpRequest, filters: Query[RunFiltersIn], params: Query[SetReportParams]) -> HttpResponse:
    """The runs the filters select (as on the Runs page), newest first, in any report format including CSV."""
    runs = filters.apply(Run.objects.all()).order_by("-created_at", "-id")[: params.limit]
    if params.format == "csv":
        records = [run_summary(run) for run in summary_queryset(runs)]
    else:
        records = [run_record(run) for run in record_queryset(runs)]
    return _download(records, params, title="EvalHub runs report", stem="evalhub-runs")


@router.get("/{int:run_id}", response=responses({200: RunOut}, 404), summary="Get a run in full")
def get_run(request: HttpRequest, run_id: int) -> dict[str, Any]:
    run = _get(run_id)
    return with_queue(run_record(run), run)


@router.delete("/{int:run_id}", response=responses({200: RunOut}, 404), auth=auth_for(WRITE), summary="Cancel a run")
def cancel_run(request: HttpRequest, run_id: int) -> dict[str, Any]:
    """A queued run is cancelled at once; a running one stops within a second or so (cancel_requested), keeping
    its transcript.

    Only who started it, whoever may change its scenario, or staff.
    """
    run = _get(run_id)
    require_change(acting_user(request), run)
    if not run.is_finished:
        run_cancel(run=run)
        run = _get(run_id)
    return run_record(run)


@router.get(
    "/{int:run_id}/report",
    response=responses({200: str}, 404),
    auth=auth_for(EXPORT),
    openapi_extra=REPORT_OPENAPI,
    summary="Report of one run",
)
def report_run(request: HttpRequest, run_id: int, params: Query[ReportParams]) -> HttpResponse:
    run = _get(run_id)
    record = run_summary(run) if params.format == "csv" else run_record(run)
    return _download(
        [record], params, title=f"EvalHub run #{run.pk}: {run.scenario.name}", stem=f"evalhub-run-{run.pk}"
    )
