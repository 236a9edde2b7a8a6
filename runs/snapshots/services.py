"""Reading and writing a scenario's snapshots around the expectations engine, which stays pure.

A run's `snapshots` setting says how its `$snapshot` checks treat a missing or different value: "update"
(`--update-snapshots`) re-records every snapshot the run reaches; "ci" (CI=true without it) fails a check that
would record a first value; by default a first value is recorded and later ones compared.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser

from runs.models import Run, ScoreResult
from runs.snapshots.models import ExpectationSnapshot
from scorers.expectations.matchers import Snapshots

UPDATE, CI = "update", "ci"
# Statuses of a check whose value the run page can offer to store (scorers.expectations.matchers.snapshot).
UPDATABLE = ("mismatched", "refused")


def run_snapshots(run: Run) -> Snapshots:
    """The stored snapshots of the run's scenario, with the run's mode."""
    mode = run.settings.get("snapshots", "")
    stored = dict(ExpectationSnapshot.objects.filter(scenario=run.scenario_id).values_list("key", "value"))
    return Snapshots(stored=stored, update=mode == UPDATE, may_create=mode != CI)


def snapshots_record(*, run: Run, seen: Iterable[Mapping[str, Any]]) -> None:
    """Store what a finishing run created or re-recorded. Call inside the transaction that saves its score."""
    for entry in seen:
        if entry["status"] == "created":
            # Two runs of one scenario may both see no snapshot: the first stored wins, as if it ran first.
            ExpectationSnapshot.objects.get_or_create(
                scenario_id=run.scenario_id, key=entry["key"], defaults={"value": entry["value"], "run": run}
            )
        elif entry["status"] == "updated":
            ExpectationSnapshot.objects.update_or_create(
                scenario_id=run.scenario_id, key=entry["key"], defaults={"value": entry["value"], "run": run}
            )


def updatable_snapshots(run: Run) -> list[dict[str, Any]]:
    """The snapshot checks of the run's current expectations result that failed: the values it can store."""
    result = run.score_results.filter(is_current=True, scorer_kind="expectations").first()
    seen = (result.details or {}).get("snapshots", []) if isinstance(result, ScoreResult) else []
    return [entry for entry in seen if entry.get("status") in UPDATABLE]


def snapshots_update(*, run: Run, by: AbstractBaseUser) -> list[str]:
    """Store this run's values as its scenario's snapshots (the failed ones); the keys stored.

    The run keeps its recorded verdict: later runs compare with the new values.
    """
    keys = []
    for entry in updatable_snapshots(run):
        ExpectationSnapshot.objects.update_or_create(
            scenario_id=run.scenario_id,
            key=entry["key"],
            defaults={"value": entry["value"], "run": run, "updated_by": by},
        )
        keys.append(entry["key"])
    return keys
