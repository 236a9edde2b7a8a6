"""/scorers: code scorers and LLM judges, through the ScorerForm and services the Scorers page uses.

Saving a change of content makes a new version (scorers.services.scorer_save); `POST /scorers/generate` writes
code from a description without saving it; `POST /scorers/{id}/test` scores a past run with the saved scorer.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.responses import Status

from evalhub.api.common import (
    WRITE,
    Id,
    Page,
    PageParams,
    acting_user,
    form_errors,
    get_or_404,
    invalid,
    not_found,
    paginate,
    patched,
    responses,
)
from evalhub.api_keys.auth import auth_for
from evalhub.permissions import require_change
from evalhub.servers.models import McpServer
from runs.models import Run
from runs.scoring import run_record
from scorers import services
from scorers.calibration.services import Calibration, scorer_calibration
from scorers.calibration.wand import generate_from_reviews
from scorers.forms import ScorerForm
from scorers.models import Scorer

router = Router()

ScorerKind = Literal["code", "judge"]
# API field → ScorerForm field, to put the form's errors where the client's fields are.
FORM_FIELDS = {"judge_model_choice": "judge_model"}


class ScorerOut(Schema):
    id: int
    name: str
    description: str
    kind: str
    version: int = Field(description="Bumped by every change of content; results keep the version that scored.")
    code: str
    system_prompt: str
    labels: str
    judge_provider_id: int | None
    judge_model: str
    scenario_ids: list[int]
    created_at: datetime
    updated_at: datetime


class ScorerIn(Schema):
    name: str = Field(min_length=1, max_length=200)
    description: str = ""
    kind: ScorerKind = "code"
    code: str = Field("", description="async ({ input, expected, output }) => number from 0 to 1")
    system_prompt: str = Field("", description="Judges: what to evaluate.")
    labels: str = Field("", description="Judges: one LABEL|score per line, e.g. GOOD|1.")
    judge_provider_id: Id | None = Field(None, description="Judges: empty for the default judge model (Settings).")
    judge_model: str = Field("", max_length=200)


class ScorerPatch(Schema):
    """Only the fields sent change."""

    name: str | None = Field(None, min_length=1, max_length=200)
    description: str | None = None
    kind: ScorerKind | None = None
    code: str | None = None
    system_prompt: str | None = None
    labels: str | None = None
    judge_provider_id: Id | None = None
    judge_model: str | None = Field(None, max_length=200)


class ScorerFilters(Schema):
    kind: ScorerKind | None = None
    q: str | None = Field(None, max_length=200, description="Part of the name.")


class GenerateIn(Schema):
    description: str = Field(min_length=1, max_length=4000, description="What a good run looks like.")
    server_id: Id | None = Field(None, description="Use this server's tools (its latest inspection).")
    learn_from_reviews: bool = Field(
        False,
        description="Show the model up to 2 passed and 2 failed reviewed runs (with notes) as examples, then test "
        "the code on the other reviewed runs (of server_id's runs when given).",
    )


class DraftAgreementOut(Schema):
    reviewed: int
    agreement: float | None
    kappa: float | None
    true_positive_rate: float | None
    true_negative_rate: float | None
    confusion: dict[str, int]
    undecided: int = Field(description="Held-out runs the code skipped or errored on, left out of the figures.")
    false_passes: list[int]
    false_fails: list[int]


class GeneratedOut(Schema):
    code: str
    source: str = Field(description='"model" or "template" (no generation model configured, or it failed).')
    note: str
    example_run_ids: list[int] | None = Field(None, description="With learn_from_reviews: the runs shown as examples.")
    held_out_run_ids: list[int] | None = Field(None, description="With learn_from_reviews: the runs tested on.")
    agreement: DraftAgreementOut | None = Field(
        None, description="With learn_from_reviews: the code's agreement with people on the held-out runs."
    )


class TestIn(Schema):
    run_id: Id


class EvaluationOut(Schema):
    outcome: str = Field(description='"ok", "errored" (counts as 0) or "skipped" (left out of the mean).')
    score: float | None
    reason: str
    label: str
    error: str
    console: list[dict[str, str]]
    duration_ms: int
    input_tokens: int
    output_tokens: int
    cost_usd: float | None


class ConfusionOut(Schema):
    tp: int = Field(description="The scorer passed and people passed.")
    fp: int = Field(description="The scorer passed what people failed.")
    tn: int = Field(description="The scorer failed and people failed.")
    fn: int = Field(description="The scorer failed what people passed.")


class VersionCalibrationOut(Schema):
    reviewed: int = Field(description="Runs this version scored (pass or fail) that people reviewed.")
    agreement: float | None = Field(description="Share of those runs where it and people gave the same verdict.")
    kappa: float | None = Field(description="Cohen's κ against people; None when undefined (too few, or one verdict).")
    true_positive_rate: float | None = Field(description="Of the runs people passed, the share it passed.")
    true_negative_rate: float | None = Field(description="Of the runs people failed, the share it failed.")
    confusion: ConfusionOut
    status: Literal["uncalibrated", "calibrated", "disagrees", "stale"]
    version: str = Field(description="The fingerprint of what scored: code, or a judge's prompt, labels and model.")
    judge_model: str = Field(description='The model that judged; "" for a code scorer.')
    false_pass_run_ids: list[int] = Field(description="Runs it passed and people failed, newest first.")
    false_fail_run_ids: list[int] = Field(description="Runs it failed and people passed, newest first.")


class CalibrationOut(VersionCalibrationOut):
    older: list[VersionCalibrationOut] = Field(
        description="Earlier versions (other code, prompt, labels or judge model), each judged on its own reviews."
    )


def calibration_out(calibration: Calibration) -> dict[str, Any]:
    return calibration.to_api() | {
        "false_pass_run_ids": list(calibration.false_passes),
        "false_fail_run_ids": list(calibration.false_fails),
    }


def scorer_out(scorer: Scorer) -> dict[str, Any]:
    return {
        "id": scorer.pk,
        "name": scorer.name,
        "description": scorer.description,
        "kind": scorer.kind,
        "version": scorer.version,
        "code": scorer.code,
        "system_prompt": scorer.system_prompt,
        "labels": scorer.labels,
        "judge_provider_id": scorer.judge_provider_id,
        "judge_model": scorer.judge_model,
        "scenario_ids": [scenario.pk for scenario in scorer.scenarios.all()],
        "created_at": scorer.created_at,
        "updated_at": scorer.updated_at,
    }


def _get(scorer_id: int) -> Scorer:
    return get_or_404(Scorer.objects.prefetch_related("scenarios"), "Scorer", scorer_id)


def _save(values: dict[str, Any], instance: Scorer | None, request: HttpRequest) -> Scorer:
    provider_id, model = values.get("judge_provider_id"), values.get("judge_model") or ""
    if bool(provider_id) != bool(model):
        raise invalid("Give judge_provider_id and judge_model together, or neither.", field="judge_model")
    data = {
        "name": values["name"],
        "description": values["description"],
        "kind": values["kind"],
        "code": values["code"],
        "system_prompt": values["system_prompt"],
        "labels": values["labels"],
        "judge_model_choice": f"{provider_id}:{model}" if provider_id else "",
    }
    form = ScorerForm(data, instance=instance)
    if not form.is_valid():
        raise form_errors(form, FORM_FIELDS)
    scorer = services.scorer_save(scorer=form.save(commit=False), user=acting_user(request))
    return _get(scorer.pk)


@router.get("", response=responses({200: Page[ScorerOut]}), summary="List scorers")
def list_scorers(request: HttpRequest, filters: Query[ScorerFilters], page: Query[PageParams]) -> dict[str, Any]:
    scorers = Scorer.objects.prefetch_related("scenarios")
    if filters.kind:
        scorers = scorers.filter(kind=filters.kind)
    if filters.q:
        scorers = scorers.filter(name__icontains=filters.q)
    return paginate(scorers.order_by("name", "pk"), page, out=scorer_out)


@router.post("", response=responses({201: ScorerOut}), auth=auth_for(WRITE), summary="Create a scorer")
def create_scorer(request: HttpRequest, payload: ScorerIn) -> Status:
    return Status(201, scorer_out(_save(payload.dict(), None, request)))


@router.post(
    "/generate", response=responses({200: GeneratedOut}, 404), auth=auth_for(WRITE), summary="Write scorer code"
)
def generate_scorer(request: HttpRequest, payload: GenerateIn) -> dict[str, Any]:
    """Code for a plain-English description, by the generation model chosen in Settings. Not saved."""
    tools: list[dict[str, Any]] = []
    server = None
    if payload.server_id is not None:
        server = McpServer.objects.filter(pk=payload.server_id).first()
        if server is None:
            raise not_found("Server", payload.server_id)
        snapshot = server.latest_snapshot()
        tools = list(snapshot.tools) if snapshot else []
    if not payload.learn_from_reviews:
        generated = services.scorer_generate(description=payload.description.strip(), tools=tools)
        return {"code": generated.code, "source": generated.source, "note": generated.note}
    learned = generate_from_reviews(description=payload.description.strip(), tools=tools, server=server)
    test = learned.test
    agreement = None
    if test is not None:
        agreement = {
            **test.figures.to_dict(),
            "undecided": test.undecided,
            "false_passes": [run.pk for run in test.false_passes],
            "false_fails": [run.pk for run in test.false_fails],
        }
    return {
        "code": learned.generated.code,
        "source": learned.generated.source,
        "note": learned.generated.note,
        "example_run_ids": [run.pk for run in learned.examples],
        "held_out_run_ids": [run.pk for run in learned.held_out],
        "agreement": agreement,
    }


@router.get("/{int:scorer_id}", response=responses({200: ScorerOut}, 404), summary="Get a scorer")
def get_scorer(request: HttpRequest, scorer_id: int) -> dict[str, Any]:
    return scorer_out(_get(scorer_id))


@router.get(
    "/{int:scorer_id}/calibration",
    response=responses({200: CalibrationOut}, 404),
    summary="How a scorer agrees with people's reviews",
)
def get_scorer_calibration(request: HttpRequest, scorer_id: int) -> dict[str, Any]:
    """The scorer as it is now (its code, or its prompt, labels and judge model) against the human verdicts of the
    runs it scored: `calibrated` once EVALHUB_CALIBRATION_MIN_REVIEWS runs were reviewed and Cohen's κ reaches
    EVALHUB_CALIBRATION_MIN_KAPPA; `stale` when only an earlier version was reviewed enough."""
    calibration = scorer_calibration(scorer=_get(scorer_id))
    return calibration_out(calibration.current) | {"older": [calibration_out(c) for c in calibration.older]}


@router.patch(
    "/{int:scorer_id}", response=responses({200: ScorerOut}, 404), auth=auth_for(WRITE), summary="Update a scorer"
)
def update_scorer(request: HttpRequest, scorer_id: int, payload: ScorerPatch) -> dict[str, Any]:
    """Its creator or staff only. A change of kind, code, prompt, labels or judge model makes a new version."""
    scorer = _get(scorer_id)
    require_change(acting_user(request), scorer)
    values = patched(scorer_out(scorer), payload.dict(exclude_unset=True))
    return scorer_out(_save(values, scorer, request))


@router.delete(
    "/{int:scorer_id}", response=responses({204: None}, 404), auth=auth_for(WRITE), summary="Delete a scorer"
)
def delete_scorer(request: HttpRequest, scorer_id: int) -> Status:
    """Its creator or staff only. Past results keep the scorer's name and score."""
    scorer = _get(scorer_id)
    require_change(acting_user(request), scorer)
    scorer.delete()
    return Status(204, None)


@router.post(
    "/{int:scorer_id}/test",
    response=responses({200: EvaluationOut}, 404),
    auth=auth_for(WRITE),
    summary="Test a scorer on a run",
)
def test_scorer(request: HttpRequest, scorer_id: int, payload: TestIn) -> dict[str, Any]:
    """Score a finished run with the saved scorer (same sandbox and limits as the worker); nothing is stored."""
    scorer = _get(scorer_id)
    run = Run.objects.filter(pk=payload.run_id).first()
    if run is None:
        raise not_found("Run", payload.run_id)
    if run.status != Run.Status.DONE:
        raise invalid(f"Run {run.pk} is {run.status}; test on a finished (done) run.", field="run_id")
    evaluation = services.scorer_evaluate(content=scorer, record=run_record(run))
    return {
        "outcome": evaluation.outcome,
        "score": evaluation.score,
        "reason": evaluation.reason,
        "label": evaluation.label,
        "error": evaluation.error,
        "console": evaluation.console,
        "duration_ms": evaluation.duration_ms,
        "input_tokens": evaluation.input_tokens,
        "output_tokens": evaluation.output_tokens,
        "cost_usd": float(evaluation.cost_usd) if evaluation.cost_usd is not None else None,
    }
