"""Experiments: how long a real one takes on the worker, and how fast its pages are with 5,000 runs.

    .venv/bin/python bench/experiment_bench.py run   [--scenarios 10] [--trials 5] [--concurrency 2]
    .venv/bin/python bench/experiment_bench.py pages [--requests 50]

`run`: an experiment of 10 scenarios x 2 models x 5 trials (100 runs: the offline model, served by two providers
so the matrix has two columns, and the demo MCP server over stdio) on the worker `make run` starts (one
`celery worker --concurrency 2`, prefork), PostgreSQL and Redis. Prints the wall time from the experiment's start
to its last run's end, the sum of the runs' own durations, and their ratio (1 / concurrency is the ideal).

`pages`: two experiments of 5,000 runs each (50 scenarios x 5 models x 20 trials; records of realistic size from
fake_runs.py, pass rates that differ between the two), their cells' metrics computed by cells_refresh, then the
experiment page and the compare page requested --requests times each (after 3 warm-ups) through the Django test
client, logged in: median and p95 (nearest rank) of the whole request and the number of SQL queries.
Target: p95 < 150 ms and as many queries as for a 1-run experiment.

The database named by DATABASE_URL (default postgres://postgres@127.0.0.1:5432/evalhub_bench_experiments) is
dropped and recreated; the broker is CELERY_BROKER_URL (default redis://127.0.0.1:6379/5), on a queue of its own.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/evalhub_bench_experiments")

from fake_runs import MODELS, record, words  # noqa: E402 — bench/ is the script's folder
from run_throughput import QUEUE, Workers, percentile, prepare_environment  # noqa: E402

PROMPTS = [
    "What's the weather at latitude {lat}, longitude {lon}?",
    "Search flights from Paris to {city} on 2026-12-{day}.",
]
CITIES = ["Rome", "London", "Madrid", "Berlin", "Lisbon"]


def setup_django() -> None:
    import django

    os.environ.setdefault("ALLOWED_HOSTS", "testserver")
    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def bench_run(scenario_count: int, trials: int, concurrency: int) -> None:
    from django.contrib.auth.models import User

    from evalhub.celery import app
    from evalhub.providers.models import OFFLINE_BASE_URL, OFFLINE_MODEL, Provider, offline_provider
    from runs.experiments.models import Experiment
    from runs.experiments.services import ModelChoice, experiment_start
    from runs.models import Run
    from runs.services import run_start
    from tests.base import make_demo_server, make_scenario

    user = User.objects.create_user("bench")
    server = make_demo_server()
    rng = random.Random(11)
    scenarios = [
        make_scenario(
            server,
            name=f"Scenario {index + 1:02d}",
            prompt=PROMPTS[index % 2].format(
                lat=round(rng.uniform(-60, 60), 2),
                lon=round(rng.uniform(-120, 120), 2),
                city=CITIES[index % len(CITIES)],
                day=10 + index,
            ),
            expected_tools=["get_weather" if index % 2 == 0 else "search_flights"],
        )
        for index in range(scenario_count)
    ]
    second = Provider(name="Offline, second provider", base_url=OFFLINE_BASE_URL, model_names=[OFFLINE_MODEL])
    second.set_secrets(api_key="", headers={})
    second.save()
    models = [ModelChoice(offline_provider(), OFFLINE_MODEL), ModelChoice(second, OFFLINE_MODEL)]
    workers = Workers(concurrency, "prefork")
    try:
        workers.wait_ready()
        warm = [run_start(scenario=scenarios[0], user=user).pk for _ in range(2 * concurrency)]
        while Run.objects.filter(pk__in=warm).exclude(status__in=Run.FINISHED).exists():
            time.sleep(0.1)
        started = time.monotonic()
        experiment = experiment_start(
            name="bench", scenarios=scenarios, models=models, trials=trials, user=user, label="bench"
        )
        while Experiment.objects.get(pk=experiment.pk).status == Experiment.Status.RUNNING:
            if time.monotonic() - started > 3600:
                raise SystemExit("The experiment did not finish within an hour.")
            time.sleep(0.2)
    finally:
        workers.stop()
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge(QUEUE)
            conn.default_channel.queue_delete(QUEUE)
    runs = list(Run.objects.filter(experiment=experiment))
    wall = (max(r.finished_at for r in runs if r.finished_at) - experiment.created_at).total_seconds()
    own = sum(r.duration_ms or 0 for r in runs) / 1000
    passed = sum(bool(r.passed) for r in runs)
    print(f"\nExperiment: {scenario_count} scenarios x {len(models)} models x {trials} trials = {len(runs)} runs")
    print(f"worker: celery --concurrency {concurrency} (prefork), PostgreSQL + Redis, {os.cpu_count()} CPUs")
    print(f"passed: {passed}/{len(runs)}; status: {', '.join(sorted({r.status for r in runs}))}")
    print(f"wall time (experiment created → last run finished): {wall:.1f} s")
    print(f"sum of the runs' own durations: {own:.1f} s (mean {own / len(runs):.2f} s per run)")
    print(
        f"wall / sum of durations: {wall / own:.2f} (ideal with {concurrency} worker processes: {1 / concurrency:.2f})"
    )


def _load_experiment(
    label: str, scenarios: list[Any], models: list[tuple[Any, str]], trials: int, pool: list[dict[str, Any]]
) -> Any:
    """An experiment whose runs are written directly (no worker): the pages read only cells, runs only count."""
    from django.utils import timezone

    from runs.experiments.metrics import cells_refresh
    from runs.experiments.models import Experiment, ExperimentCell
    from runs.models import Run

    rng = random.Random(label)
    experiment = Experiment.objects.create(
        name=f"bench {label}",
        label=label,
        tag="bench",
        scenario_ids=[s.pk for s in scenarios],
        model_list=[{"provider_id": p.pk, "provider": p.name, "model": m} for p, m in models],
        trials=trials,
        total_runs=len(scenarios) * len(models) * trials,
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
    now = timezone.now()
    batch: list[Run] = []
    for trial in range(1, trials + 1):
        for cell in cells:
            chance = ((cell.row * 7 + cell.column * 3) % 10) / 10 + (0.15 if label == "baseline" else 0.0)
            passed = rng.random() < chance
            data = rng.choice(pool)
            batch.append(
                Run(
                    scenario_id=cell.scenario_id,
                    provider_id=cell.provider_id,
                    model=cell.model,
                    server_id=scenarios[0].server_id,
                    settings={"prompt": data["transcript"]["prompt"], "pass_threshold": 0.7},
                    status=Run.Status.DONE,
                    stop_reason=Run.StopReason.COMPLETED,
                    started_at=now,
                    finished_at=now,
                    duration_ms=rng.randint(800, 9000),
                    score=rng.uniform(0.7, 1) if passed else rng.uniform(0, 0.69),
                    passed=passed,
                    # The cells count decided trials by verdict (runs.experiments.metrics).
                    verdict="pass" if passed else "fail",
                    failure_cause="" if passed else "agent",
                    experiment=experiment,
                    cell=cell,
                    trial=trial,
                    **{k: data[k] for k in ("transcript", "tool_calls", "tool_names", "final_text", "model_calls")},
                    all_tool_calls=data["tool_calls"],
                    input_tokens=data["input_tokens"],
                    output_tokens=data["output_tokens"],
                    cost_usd=data["cost_usd"],
                )
            )
    Run.objects.bulk_create(batch, batch_size=500)
    cells_refresh(cell_ids=[cell.pk for cell in cells])
    experiment.refresh_from_db()
    return experiment


def bench_pages(requests: int) -> None:
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from evalhub.providers.models import Provider
    from evalhub.scenarios.models import Scenario
    from tests.base import make_demo_server

    started = time.perf_counter()
    rng = random.Random(5)
    user = User.objects.create_superuser("bench", "", "bench-password")
    server = make_demo_server()
    provider = Provider(name="Bench models", base_url="http://127.0.0.1:9/v1", model_names=MODELS[1:])
    provider.set_secrets(api_key="", headers={})
    provider.save()
    scenarios = [
        Scenario.objects.create(
            name=f"Scenario {index:02d} {words(rng, 20)}",
            prompt=words(rng, 120),
            server=server,
            provider=provider,
            model=MODELS[1],
        )
        for index in range(50)
    ]
    models = [(provider, model) for model in MODELS[1:]]
    pool = [record(rng, words(rng, 120), rng.choice(MODELS[1:]), 1_750_000_000_000) for _ in range(300)]
    baseline = _load_experiment("baseline", scenarios, models, 20, pool)
    candidate = _load_experiment("candidate", scenarios, models, 20, pool)
    small = _load_experiment("one run", scenarios[:1], models[:1], 1, pool)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    print(f"loaded 2 x {candidate.total_runs} runs (+1) in {time.perf_counter() - started:.0f} s")

    client = Client()
    client.force_login(user)
    pages = {
        "experiment page, 5,000 runs": f"/experiments/{candidate.pk}/",
        "experiment page, 1 run": f"/experiments/{small.pk}/",
        "compare page, 5,000 vs 5,000 runs": f"/experiments/{candidate.pk}/compare/?baseline={baseline.pk}",
        "compare page, 1 vs 1 run": f"/experiments/{small.pk}/compare/?baseline={small.pk}",
        "API GET /experiments/{id}, 5,000 runs": f"/api/v1/experiments/{candidate.pk}",
    }
    print(f"\n{'page':<42}{'median ms':>10}{'p95 ms':>10}{'queries':>9}")
    for name, url in pages.items():
        for _ in range(3):
            assert client.get(url).status_code == 200, url
        times = []
        for _ in range(requests):
            began = time.perf_counter()
            with CaptureQueriesContext(connection) as queries:
                response = client.get(url)
            times.append((time.perf_counter() - began) * 1000)
            assert response.status_code == 200
        print(f"{name:<42}{statistics.median(times):>10.1f}{percentile(times, 95):>10.1f}{len(queries):>9}")
    summary = client.get(pages["compare page, 5,000 vs 5,000 runs"]).content.decode()
    line = summary.split('id="compare-summary"><strong>')[1].split("<")[0]
    print(f"\ncompare summary: {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=["run", "pages"])
    parser.add_argument("--scenarios", type=int, default=10)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=2, help="worker processes, as `make run` starts")
    parser.add_argument("--requests", type=int, default=50)
    args = parser.parse_args()
    prepare_environment()
    (Path(os.environ["EVALHUB_VAR_DIR"]) / "logs").mkdir(parents=True, exist_ok=True)
    setup_django()
    if args.part == "run":
        bench_run(args.scenarios, args.trials, args.concurrency)
    else:
        bench_pages(args.requests)


if __name__ == "__main__":
    main()
