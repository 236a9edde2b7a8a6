"""An experiment's inconclusive trial is run once more (Experiment.rerun_inconclusive, on by default).

An inconclusive run (the model provider failed, the worker was lost, EvalHub or a judge could not decide) says
nothing about the agent or the server; a second try usually decides the trial, so an outage of a few seconds does
not leave a cell undecided (and a CI gate exiting 3). Only once: a trial inconclusive twice stays so, and the gate
reports it. The re-run is an ordinary run of the same cell and trial number, admitted against the daily quota like
any run; the cell then counts the trial by its last run (runs.experiments.metrics).

The worker's task and the stale-run reaper call `trials_rerun_inconclusive` with the runs they finished, before
refreshing the cells, so the experiment never looks done while a re-run is queued.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from django.db import transaction

from runs.events import publish as events
from runs.experiments.models import Experiment, ExperimentCell
from runs.models import Run
from runs.quota import QuotaExceeded, reserve_runs
from runs.run_choices import RunChoices

logger = logging.getLogger(__name__)


def trials_rerun_inconclusive(*, run_ids: Iterable[int]) -> list[Run]:
    """Queue a second run of each of these runs' trials that ended inconclusive, when its experiment asks for it,
    is still running, and the trial has not been re-run yet. Returns the runs queued."""
    # runs.services imports the worker's tasks, which call this module: imported here to break the cycle.
    from runs.services import run_create

    candidates = Run.objects.filter(
        pk__in=list(run_ids),
        verdict="inconclusive",
        cell__isnull=False,
        experiment__rerun_inconclusive=True,
        experiment__status=Experiment.Status.RUNNING,
    ).select_related("scenario", "provider", "started_by")
    queued = []
    for run in candidates:
        with transaction.atomic():
            # Locked: two workers closing the same trial's runs must not both re-run it.
            cell = ExperimentCell.objects.select_for_update(of=("self",)).filter(runs=run).first()
            if Run.objects.filter(cell_id=run.cell_id, trial=run.trial).count() > 1:
                continue  # already re-run once: it stays inconclusive
            try:
                reserve_runs(1)
            except QuotaExceeded:
                logger.info(
                    "Trial %s of cell %s stays inconclusive: no quota left to re-run it.", run.trial, run.cell_id
                )
                continue
            rerun = run_create(
                scenario=run.scenario,
                user=run.started_by,
                choices=RunChoices(
                    model=run.model,
                    provider=run.provider,
                    tool_mode=str((run.settings or {}).get("tool_mode", "")),
                    judges=str((run.settings or {}).get("judges", "")),
                    variant=(run.settings or {}).get("variant"),
                    fault_injection=cell.fault_injection if cell is not None and cell.fault_profile else None,
                ),
                cell=run.cell,
                trial=run.trial,
            )
            events.runs_queued([rerun])
        queued.append(rerun)
    return queued
