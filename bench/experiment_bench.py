"""Experiments: how long a real one takes on the worker, and how fast its pages are with 5,000 runs.

    .venv/bin/python bench/experiment_bench.py run   [--scenarios 10] [--trials 5] [--concurrency 2]
    .venv/bin/python bench/experiment_bench.py pages [--requests 50] [--page-scenarios 50] [--page-trials 20]

`run`: an experiment of 10 scenarios x 2 models x 5 trials (100 runs: the offline model, served by two providers
so the matrix has two columns, and the demo MCP server over stdio) on the worker `make run` starts (one
`celery worker --concurrency 2`, prefork), PostgreSQL and Redis. Prints the wall time from the experiment's start
to its last run's end, the sum of the runs' own durations, and their ratio (1 / concurrency is the ideal): the two
figures issue 11 asks for.

`pages`: two experiments of 5,000 runs each (50 scenarios x 5 models x 20 trials; records of realistic size from
fake_runs.py, written by COPY; pass rates that differ between the two), their cells' metrics computed by
cells_refresh, then the
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
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/evalhub_bench_experiments")

from fake_experiments import load_experiment  # noqa: E402 — bench/ is the script's folder
from fake_runs import MODELS, record, words  # noqa: E402
from run_throughput import Workers, delete_queue, percentile, prepare_environment  # noqa: E402

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
        delete_queue()
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
    print(f"headline: experiment wall time, {len(runs)} runs = {wall:.1f} s")
    print(f"headline: experiment wall time / sum of the runs' own durations = {wall / own:.2f}")


def bench_pages(requests: int, scenario_count: int, trials: int) -> None:
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

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
        for index in range(scenario_count)
    ]
    models = [(provider, model) for model in MODELS[1:]]
    pool = [record(rng, words(rng, 120), rng.choice(MODELS[1:]), 1_750_000_000_000) for _ in range(300)]
    created = timezone.now() - timedelta(hours=6)

    def load(label: str, chosen: list[Any], matrix: list[tuple[Any, str]], count: int) -> Any:
        return load_experiment(
            label=label, scenarios=chosen, models=matrix, trials=count, pool=pool, user=user, created=created
        )

    baseline = load("baseline", scenarios, models, trials)
    candidate = load("candidate", scenarios, models, trials)
    small = load("one run", scenarios[:1], models[:1], 1)
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    print(f"loaded 2 x {candidate.total_runs} runs (+1) in {time.perf_counter() - started:.0f} s")

    client = Client()
    client.force_login(user)
    size = f"{candidate.total_runs:,}"
    pages = {
        f"experiment page, {size} runs": f"/experiments/{candidate.pk}/",
        "experiment page, 1 run": f"/experiments/{small.pk}/",
        f"compare page, {size} vs {size} runs": f"/experiments/{candidate.pk}/compare/?baseline={baseline.pk}",
        "compare page, 1 vs 1 run": f"/experiments/{small.pk}/compare/?baseline={small.pk}",
        f"API GET /experiments/{{id}}, {size} runs": f"/api/v1/experiments/{candidate.pk}",
    }
    worst: dict[str, float] = {}
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
        kind = name.split(",")[0]
        worst[kind] = max(worst.get(kind, 0.0), percentile(times, 95))
    summary = client.get(f"/experiments/{candidate.pk}/compare/?baseline={baseline.pk}").content.decode()
    line = summary.split('id="compare-summary"><strong>')[1].split("<")[0]
    print(f"\ncompare summary: {line}")
    for kind in ("experiment page", "compare page"):
        print(f"headline: {kind} p95, worst case, {size}-run experiments = {worst[kind]:.1f} ms (target < 150 ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=["run", "pages"])
    parser.add_argument("--scenarios", type=int, default=10)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--concurrency", type=int, default=2, help="worker processes, as `make run` starts")
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--page-scenarios", type=int, default=50, help="pages: scenarios of each experiment")
    parser.add_argument("--page-trials", type=int, default=20, help="pages: trials per cell (x 5 models)")
    args = parser.parse_args()
    prepare_environment()
    (Path(os.environ["EVALHUB_VAR_DIR"]) / "logs").mkdir(parents=True, exist_ok=True)
    setup_django()
    if args.part == "run":
        bench_run(args.scenarios, args.trials, args.concurrency)
    else:
        bench_pages(args.requests, args.page_scenarios, args.page_trials)


if __name__ == "__main__":
    main()
