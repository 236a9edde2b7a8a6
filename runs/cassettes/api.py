"""/runs/{id}/replay and /runs/{id}/fork: new runs answered from a run's cassette (runs.cassettes)."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from ninja import Field, Router, Schema
from ninja.responses import Status

from evalhub.api.common import WRITE, ApiError, ErrorCode, Id, acting_user, get_or_404, invalid, responses
from evalhub.api_keys.auth import auth_for
from runs.api import RunSummaryOut
from runs.cassettes.services import ReplayRefused, run_fork, run_replay, runs_replay_many
from runs.models import Run
from runs.reports.records import run_summary

router = Router()


class ReplayIn(Schema):
    mcp: Literal["cassette", "live"] = Field(
        "cassette",
        description='"cassette": the MCP server\'s answers come from the cassette too (offline, no server started); '
        '"live": the server as it is now answers, and an answer that differs from the recorded one stops the run.',
    )


class ForkIn(Schema):
    at_step: int = Field(description="The transcript step (1 for the first model call) where the change applies.")
    change: dict[str, Any] = Field(
        description='One change: {"kind": "tool_result", "call": 0, "result": {...}}, {"kind": "tool", "tool", '
        '"description"?, "input_schema"?}, {"kind": "system_prompt", "system_prompt"} or {"kind": "model", "model"}.'
    )


class ReplayManyIn(ReplayIn):
    experiment_id: Id | None = Field(None, description="Replay every recorded run of this experiment…")
    scenario_ids: list[Id] = Field([], max_length=500, description="…or the latest recorded run of each scenario.")


class ReplayManyOut(Schema):
    queued: int
    runs: list[RunSummaryOut]


def _refused(exc: ReplayRefused) -> ApiError:
    if exc.field:
        return invalid(str(exc), field=exc.field)
    return ApiError(ErrorCode.CONFLICT, str(exc), {})


@router.post(
    "/{int:run_id}/replay",
    response=responses({201: RunSummaryOut}, 404, 409),
    auth=auth_for(WRITE),
    summary="Replay a run from its cassette",
)
def replay_run(request: HttpRequest, run_id: int, payload: ReplayIn) -> Status:
    """A new run whose model calls are answered from this run's cassette (no model call, no cost), and its MCP calls
    from the cassette too or from the live server. Answers 201 with the new run's summary; 409 when the run has no
    cassette or has not finished."""
    run = get_or_404(Run.objects.select_related("scenario"), "Run", run_id)
    try:
        replay = run_replay(run=run, user=acting_user(request), mcp=payload.mcp)
    except ReplayRefused as exc:
        raise _refused(exc) from None
    return Status(201, run_summary(replay))


@router.post(
    "/{int:run_id}/fork",
    response=responses({201: RunSummaryOut}, 404, 409),
    auth=auth_for(WRITE),
    summary="Fork a run at a step with one change",
)
def fork_run(request: HttpRequest, run_id: int, payload: ForkIn) -> Status:
    """A new run that replays this one up to `at_step`, then goes on live (model and server) with `change`.
    Answers 201 with the new run's summary; 400 naming the field when the step or change does not fit the run."""
    run = get_or_404(Run.objects.select_related("scenario", "provider"), "Run", run_id)
    try:
        fork = run_fork(run=run, user=acting_user(request), at_step=payload.at_step, change=payload.change)
    except ReplayRefused as exc:
        raise _refused(exc) from None
    return Status(201, run_summary(fork))


@router.post(
    "/replay",
    response=responses({201: ReplayManyOut}, 409),
    auth=auth_for(WRITE),
    summary="Replay an experiment's runs, or each scenario's latest run",
)
def replay_runs(request: HttpRequest, payload: ReplayManyIn) -> Status:
    """What `evalhub run --replay` starts: every recorded run of `experiment_id`, or the latest recorded live run of
    each of `scenario_ids`, replayed (all or none: 429 when the quota cannot take them all)."""
    if (payload.experiment_id is None) == (not payload.scenario_ids):
        raise invalid("Send either experiment_id or scenario_ids.", fields=["experiment_id", "scenario_ids"])
    try:
        replays = runs_replay_many(
            user=acting_user(request),
            mcp=payload.mcp,
            experiment_id=payload.experiment_id,
            scenario_ids=payload.scenario_ids,
        )
    except ReplayRefused as exc:
        raise _refused(exc) from None
    return Status(201, {"queued": len(replays), "runs": [run_summary(run) for run in replays]})
