"""Keeping a run's cassette, and starting replays and forks of a run from it. Pages, the API and the CLI call these."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction

from runs.cassettes.fork import parse_change
from runs.cassettes.interposer import CASSETTE, FORK, LIVE, REPLAYED_DURATION
from runs.cassettes.models import Cassette
from runs.cassettes.store import fork_boundary
from runs.cassettes.tape import SIMULATOR, Tape
from runs.events import publish as events
from runs.models import Run
from runs.quota import reserve_run, reserve_runs
from runs.tasks import execute_run


class ReplayRefused(ValueError):
    """The run cannot be replayed or forked as asked; the message names the field and what to do."""

    def __init__(self, message: str, field: str = "") -> None:
        super().__init__(message)
        self.field = field


def run_replay(*, run: Run, user: AbstractBaseUser | AnonymousUser | None, mcp: str) -> Run:
    """A new run answered from `run`'s cassette: the model always, the MCP server too (`"cassette"`, offline) or
    the live server, checked against it (`"live"`). Raises ReplayRefused, or QuotaExceeded like any run start."""
    if mcp not in (CASSETTE, LIVE):
        raise ReplayRefused(
            f'mcp: {mcp!r} is neither "cassette" (offline) nor "live" (the server as it is now).', "mcp"
        )
    _cassette_of(run)
    if mcp == LIVE and run.server_id is None:
        raise ReplayRefused('mcp: the run\'s server was deleted; replay it offline with "cassette".', "mcp")
    return _start(run, user, mode=mcp)


def run_fork(*, run: Run, user: AbstractBaseUser | AnonymousUser | None, at_step: Any, change: Any) -> Run:
    """A new run that replays `run` up to step `at_step`, then goes on live with one change (runs.cassettes.fork)."""
    source = Tape.from_json(_cassette_of(run).data)
    if run.simulator_calls or source.exchanges[SIMULATOR]:
        raise ReplayRefused("A run with a simulated user cannot be forked: its steps are not the model's alone.")
    if run.server_id is None or run.provider_id is None:
        raise ReplayRefused("The run's server or provider was deleted: a fork goes on live with them.")
    if not isinstance(at_step, int) or isinstance(at_step, bool):
        raise ReplayRefused("at_step: the transcript step (1 for the first model call) to fork at.", "at_step")
    try:
        parsed = parse_change(change)
        fork_boundary(source, at_step, parsed)
    except ValueError as exc:
        field = str(exc).split(":", 1)[0]
        raise ReplayRefused(str(exc), field if field in ("at_step", "change") else "change") from None
    if parsed.kind == "model" and run.provider and parsed.model not in run.provider.model_names:
        raise ReplayRefused(
            f"change.model: the run's provider ({run.provider.name}) does not serve {parsed.model!r}.", "change"
        )
    return _start(run, user, mode=FORK, fork={"at_step": at_step, "change": parsed.to_dict()})


def _cassette_of(run: Run) -> Cassette:
    if not run.is_finished:
        raise ReplayRefused(f"Run {run.pk} is still {run.status}: replay it once it has finished.")
    cassette = Cassette.objects.filter(run=run).first()
    if cassette is None:
        raise ReplayRefused(f"Run {run.pk} has no cassette (it ran before runs were recorded, or never started).")
    return cassette


def _start(run: Run, user: AbstractBaseUser | AnonymousUser | None, *, mode: str, **extra: Any) -> Run:
    with transaction.atomic():
        reserve_run()
        replay = _create(run, user, mode=mode, **extra)
        events.runs_queued([replay])
    return replay


def _create(run: Run, user: AbstractBaseUser | AnonymousUser | None, *, mode: str, **extra: Any) -> Run:
    """The queued replay, its task queued on commit; the caller reserved its quota."""
    replay = Run.objects.create(
        scenario_id=run.scenario_id,
        provider_id=run.provider_id,
        model=run.model,
        server_id=run.server_id,
        tool_snapshot_id=run.tool_snapshot_id,
        tools_hash=run.tools_hash,
        started_by=user if isinstance(user, get_user_model()) else None,
        # The recorded run's settings, not the scenario's today: the agent must ask what it asked then.
        settings={**_own(run.settings), **extra, **_replayed_duration(run, mode)},
        transcript={"prompt": run.settings.get("prompt", ""), "steps": []},
        replay_of=run,
        replay=mode,
    )
    transaction.on_commit(lambda: execute_run.delay(replay.pk))
    return replay


def runs_replay_many(
    *,
    user: AbstractBaseUser | AnonymousUser | None,
    mcp: str,
    experiment_id: int | None = None,
    scenario_ids: list[int] | None = None,
) -> list[Run]:
    """Replay every recorded run of an experiment, or the latest recorded live run of each scenario (a tag's, for
    CI): `evalhub run --replay`. All or nothing: the quota for every replay is reserved at once."""
    if mcp not in (CASSETTE, LIVE):
        raise ReplayRefused(f'mcp: {mcp!r} is neither "cassette" (offline) nor "live" (the server now).', "mcp")
    recorded = Run.objects.filter(status__in=Run.FINISHED, cassette__isnull=False).order_by("pk")
    if experiment_id is not None:
        runs = list(recorded.filter(experiment_id=experiment_id))
        if not runs:
            raise ReplayRefused(f"Experiment {experiment_id} has no recorded run to replay (or does not exist).")
    else:
        # Oldest first, so each scenario's entry ends up its latest run.
        latest = {run.scenario_id: run for run in recorded.filter(scenario_id__in=scenario_ids or [], replay="")}
        runs = sorted(latest.values(), key=lambda run: run.pk)
        missing = set(scenario_ids or []) - {run.scenario_id for run in runs}
        if missing:
            raise ReplayRefused(f"No recorded run to replay for scenario(s) {sorted(missing)}: run them once first.")
    if mcp == LIVE and any(run.server_id is None for run in runs):
        raise ReplayRefused('mcp: a recorded run\'s server was deleted; replay offline with "cassette".', "mcp")
    with transaction.atomic():
        reserve_runs(len(runs))
        replays = [_create(run, user, mode=mcp) for run in runs]
        events.runs_queued(replays)
    return replays


# What a run's settings say of it as a replay: not carried over to a replay of it.
_REPLAY_SETTINGS = ("fork", REPLAYED_DURATION)


def _own(settings: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in settings.items() if key not in _REPLAY_SETTINGS}


def _replayed_duration(run: Run, mode: str) -> dict[str, Any]:
    """A replay's scorers see the duration of the run it replays (runs.scoring.run_record): a replay answers in no
    time, and its verdict must be the recorded behaviour's. A fork's behaviour is its own, and so is its time."""
    if mode == FORK:
        return {}
    return {REPLAYED_DURATION: run.settings.get(REPLAYED_DURATION, run.duration_ms)}
