"""Finished experiments for benchmarks: the experiment and its cells through the ORM, its runs by COPY
(fake_runs.copy_runs), then the cells' metrics computed by cells_refresh as the worker would after each run."""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Any

from fake_runs import copy_runs


def load_experiment(
    *,
    label: str,
    scenarios: list[Any],
    models: list[tuple[Any, str]],
    trials: int,
    pool: list[dict[str, Any]],
    user: Any,
    created: datetime,
) -> Any:
    """A finished experiment of scenarios x models x trials runs, pass rates differing by cell (and by label, so
    two experiments compare with regressions in them). `pool` holds records from fake_runs.record, used in turn."""
    from django.db import connection

    from runs.experiments.metrics import cells_refresh
    from runs.experiments.models import Experiment, ExperimentCell
    from runs.models import Run

    rng = random.Random(label)
    experiment = Experiment.objects.create(
        name=f"bench {label}",
        label=label,
        tag="bench",
        scenario_ids=[scenario.pk for scenario in scenarios],
        model_list=[
            {"provider_id": provider.pk, "provider": provider.name, "model": model} for provider, model in models
        ],
        trials=trials,
        total_runs=len(scenarios) * len(models) * trials,
        created_by=user,
    )
    cells = ExperimentCell.objects.bulk_create(
        ExperimentCell(
            experiment=experiment,
            scenario=scenario,
            scenario_name=scenario.name,
            provider=provider,
            provider_name=provider.name,
            model=model,
            row=row,
            column=column,
            trials=trials,
        )
        for row, scenario in enumerate(scenarios)
        for column, (provider, model) in enumerate(models)
    )
    servers = {scenario.pk: scenario.server_id for scenario in scenarios}

    def rows() -> Any:
        for trial in range(1, trials + 1):
            for cell in cells:
                chance = ((cell.row * 7 + cell.column * 3) % 10) / 10 + (0.15 if label == "baseline" else 0.0)
                passed = rng.random() < chance
                data = rng.choice(pool)
                started = created + timedelta(seconds=trial * 30 + cell.row)
                duration = rng.randint(800, 9000)
                yield {
                    "scenario_id": cell.scenario_id,
                    "provider_id": cell.provider_id,
                    "model": cell.model,
                    "server_id": servers[cell.scenario_id],
                    "settings": {"prompt": "bench", "pass_threshold": 0.7},
                    "started_by_id": user.pk,
                    "status": Run.Status.DONE,
                    "stop_reason": Run.StopReason.COMPLETED,
                    "created_at": started,
                    "started_at": started,
                    "finished_at": started + timedelta(milliseconds=duration),
                    "heartbeat_at": started + timedelta(milliseconds=duration),
                    "duration_ms": duration,
                    "score": rng.uniform(0.7, 1) if passed else rng.uniform(0, 0.69),
                    "passed": passed,
                    # The cells count decided trials by verdict (runs.experiments.metrics).
                    "verdict": "pass" if passed else "fail",
                    "failure_cause": "" if passed else "agent",
                    "failure_reason": "" if passed else "agent: the score is below the threshold 0.70",
                    "experiment_id": experiment.pk,
                    "cell_id": cell.pk,
                    "trial": trial,
                    **{
                        key: data[key]
                        for key in ("transcript", "tool_calls", "tool_names", "final_text", "model_calls")
                    },
                    "all_tool_calls": data["tool_calls"],
                    "input_tokens": data["input_tokens"],
                    "output_tokens": data["output_tokens"],
                    "cost_usd": data["cost_usd"],
                }

    with connection.cursor() as cursor:
        copy_runs(cursor.cursor, rows())  # psycopg's own cursor: Django has no COPY
    cells_refresh(cell_ids=[cell.pk for cell in cells])
    Experiment.objects.filter(pk=experiment.pk).update(
        status=Experiment.Status.DONE, finished_at=created + timedelta(seconds=trials * 30 + 60)
    )
    experiment.refresh_from_db()
    return experiment
