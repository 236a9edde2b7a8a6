"""The Runs list, an experiment page and the compare page with 100,000 runs in PostgreSQL: time per request and
SQL queries per page.

    .venv/bin/python bench/runs_list_pg.py [--runs 100000] [--experiment-trials 25] [--requests 50] [--reuse]

Creates (drops and recreates) the database named by DATABASE_URL, default
postgres://postgres@127.0.0.1:5432/evalhub_bench_runs_list, migrates it and loads --runs runs with COPY (every
column of runs_run: what a row leaves out gets the model's default, see fake_runs.copy_runs):
40 scenarios with tags, 6 models, 180 days of history, ~88% done / 7% error / 5% cancelled plus a few queued and
running, verdicts as the rule gives them, and records of realistic size (0-8 tool calls, each result 0.4-3.6 KB as
text plus structuredContent, in the transcript and in tool calls; ~19 KB of JSON per run on average, printed).
Among the --runs: two finished experiments (baseline and candidate) of 40 scenarios x 5 models x
--experiment-trials runs each (5,000 at the default), and an experiment of 1 run. Then VACUUM ANALYZE, as
autovacuum would after a bulk load. --reuse keeps a database already loaded with --runs runs.

Each case requests its page through the Django test client, logged in, --requests times after 3 warm-up requests,
and prints the median and p95 (nearest rank) of the whole request, the number of SQL queries and their time, and
this process's CPU time per request (what a loaded, shared machine disturbs least).
Targets (issues 5 and 11): p95 < 150 ms, and the same number of queries for every page of a kind whatever the data
(an experiment of 5,000 runs as one of 1 run).
"""

from __future__ import annotations

import argparse
import json
import math
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
VAR_DIR = Path(os.environ.setdefault("EVALHUB_VAR_DIR", "/tmp/evalhub-bench"))

from fake_experiments import load_experiment  # noqa: E402 — bench/ is the script's folder
from fake_runs import MODELS, TAGS, TOOLS, WORDS, copy_runs, history, record, words  # noqa: E402

SCENARIOS = 40
EXPERIMENT_MODELS = MODELS[1:]  # 5 models: an experiment of 40 scenarios x 5 models x 25 trials is 5,000 runs


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(math.ceil(pct / 100 * len(ordered)) - 1, 0)]


def prepare_environment(reuse: bool, runs: int) -> bool:
    """Point Django at the bench database; recreate it unless --reuse finds it loaded. True if it needs loading."""
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/evalhub_bench_runs_list")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalhub.settings")
    os.environ.setdefault("DEBUG", "1")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ.setdefault("ALLOWED_HOSTS", "testserver")  # the test client's host name
    import psycopg
    from psycopg import sql

    url = os.environ["DATABASE_URL"]
    name = url.rsplit("/", 1)[1].split("?")[0]
    if reuse:
        try:
            with psycopg.connect(url) as conn:
                row = conn.execute("SELECT count(*) FROM runs_run").fetchone()
                if row and row[0] == runs:
                    return False
        except psycopg.Error:
            pass
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    return True


def load(runs: int, experiment_trials: int) -> dict[str, float]:
    """Create the users, scenarios and tags, COPY the runs in (two experiments' among them); return sizes and
    timings."""
    from django.contrib.auth.models import User
    from django.db import connection
    from django.utils import timezone

    from evalhub.providers.models import offline_provider
    from evalhub.scenarios.models import Scenario, Tag
    from tests.base import make_demo_server

    started = time.perf_counter()
    rng = random.Random(5)
    user = User.objects.create_superuser("bench", "", "bench-password")
    provider = offline_provider()
    server = make_demo_server()
    tags = [Tag.objects.create(name=name) for name in TAGS]
    scenarios = []
    for index in range(SCENARIOS):
        scenario = Scenario.objects.create(
            name=f"{rng.choice(['Weather in', 'Flights to', 'Book a trip to', 'Forecast for'])} {rng.choice(WORDS)} "
            f"#{index}",
            prompt=words(rng, rng.randint(40, 300)),
            server=server,
            provider=provider,
            model=rng.choice(MODELS),
            expected_tools=rng.sample(TOOLS, rng.randint(0, 3)),
        )
        scenario.tags.set(rng.sample(tags, rng.randint(1, 3)))
        scenarios.append(scenario)
    # A pool of records, reused across runs: generating 100,000 distinct ones would only slow the load down.
    pool = [
        {
            key: json.dumps(value) if isinstance(value, (dict, list)) else value
            for key, value in record(rng, scenario.prompt, scenario.model, 1_750_000_000_000).items()
        }
        for scenario in rng.choices(scenarios, k=400)
    ]
    json_bytes = statistics.mean(
        len(item["transcript"]) + 2 * len(item["tool_calls"]) + len(item["model_calls"]) for item in pool
    )
    experiment_runs = 2 * SCENARIOS * len(EXPERIMENT_MODELS) * experiment_trials + 1
    if runs < experiment_runs + 20:
        raise SystemExit(f"--runs {runs} is too few: the experiments alone take {experiment_runs} runs")
    generated = time.perf_counter()
    now = timezone.now()
    with connection.cursor() as cursor:
        # psycopg's own cursor: Django has no COPY
        copy_runs(cursor.cursor, history(rng, runs - experiment_runs, scenarios, pool, user.pk, provider.pk, now))
    load_experiments(scenarios, experiment_trials, pool, user, now - timedelta(hours=6))
    copied = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
        cursor.execute("SELECT pg_total_relation_size('runs_run'), count(*) FROM runs_run")
        size, count = cursor.fetchone()
    assert count == runs, f"loaded {count} runs, not {runs}"
    return {
        "setup s": generated - started,
        "COPY s": copied - generated,
        "VACUUM ANALYZE s": time.perf_counter() - copied,
        "JSON bytes per run": json_bytes,
        "table MB": size / 1e6,
    }


def load_experiments(scenarios: list[Any], trials: int, pool: list[dict[str, Any]], user: Any, created: Any) -> None:
    """Two experiments of scenarios x EXPERIMENT_MODELS x trials runs, and one of a single run (the query count
    that every experiment page should match)."""
    from evalhub.providers.models import Provider

    provider = Provider(name="Bench models", base_url="http://127.0.0.1:9/v1", model_names=EXPERIMENT_MODELS)
    provider.set_secrets(api_key="", headers={})
    provider.save()
    models = [(provider, model) for model in EXPERIMENT_MODELS]
    for label, chosen, matrix, count in [
        ("baseline", scenarios, models, trials),
        ("candidate", scenarios, models, trials),
        ("one run", scenarios[:1], models[:1], 1),
    ]:
        load_experiment(
            label=label, scenarios=chosen, models=matrix, trials=count, pool=pool, user=user, created=created
        )


def runs_list_cases() -> list[tuple[str, str]]:
    from django.core.paginator import Paginator

    from evalhub.scenarios.models import Scenario
    from runs.models import Run
    from runs.views import PAGE_SIZE

    pages = Paginator(Run.objects.order_by("pk"), PAGE_SIZE).num_pages
    scenario = Scenario.objects.order_by("pk")[7]
    tag = scenario.tags.order_by("name")[0].name
    return [
        ("first page", "/runs/"),
        ("first page, htmx poll", "/runs/ [htmx]"),
        ("page 2", "/runs/?page=2"),
        ("deep page (middle)", f"/runs/?page={pages // 2}"),
        ("last page", f"/runs/?page={pages}"),
        ("status=error", "/runs/?status=error"),
        ("status=running", "/runs/?status=running"),
        ("passed=no", "/runs/?passed=no"),
        ("passed=no, page 50", "/runs/?passed=no&page=50"),
        ("verdict=inconclusive", "/runs/?verdict=inconclusive"),
        ("scenario", f"/runs/?scenario={scenario.pk}"),
        ("tag", f"/runs/?tag={tag}"),
        ("model=gpt-4o", "/runs/?model=gpt-4o"),
        ("model + passed + tag", f"/runs/?model=gpt-4o&passed=yes&tag={tag}"),
        ("date range (30 days)", f"/runs/?date_from={_ago(30)}&date_to={_ago(0)}"),
    ]


def experiment_cases() -> list[tuple[str, str]]:
    from runs.experiments.models import Experiment

    ids = dict(Experiment.objects.values_list("label", "pk"))
    size = Experiment.objects.get(pk=ids["candidate"]).total_runs
    return [
        (f"experiment page, {size:,} runs", f"/experiments/{ids['candidate']}/"),
        ("experiment page, 1 run", f"/experiments/{ids['one run']}/"),
        (f"compare page, {size:,} vs {size:,}", f"/experiments/{ids['candidate']}/compare/?baseline={ids['baseline']}"),
        ("compare page, 1 vs 1 run", f"/experiments/{ids['one run']}/compare/?baseline={ids['one run']}"),
    ]


def _ago(days: int) -> str:
    from django.utils import timezone

    return str((timezone.now() - timedelta(days=days)).date())


def measure(cases: list[tuple[str, str]], requests: int) -> list[dict[str, Any]]:
    from django.contrib.auth.models import User
    from django.db import connection, reset_queries
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    client.force_login(User.objects.get(username="bench"))
    rows = []
    for label, url in cases:
        htmx = url.endswith(" [htmx]")
        path = url.removesuffix(" [htmx]")
        headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        timings, cpu_ms, sql_ms, counts, rows_shown = [], [], [], set(), 0
        for index in range(3 + requests):
            # The query log keeps 9,000 entries; a full one would make every capture look empty.
            reset_queries()
            with CaptureQueriesContext(connection) as queries:
                started, cpu = time.perf_counter(), time.process_time()
                response = client.get(path, **headers)
                elapsed = (time.perf_counter() - started) * 1000
                cpu = (time.process_time() - cpu) * 1000
            if response.status_code != 200:
                raise SystemExit(f"{path} answered {response.status_code}")
            if index < 3:
                continue
            timings.append(elapsed)
            cpu_ms.append(cpu)
            sql_ms.append(sum(float(query["time"]) for query in queries.captured_queries) * 1000)
            counts.add(len(queries))
            rows_shown = response.content.decode().count('<tr id="run-')
        rows.append(
            {
                "case": label,
                "median ms": statistics.median(timings),
                "p95 ms": percentile(timings, 95),
                "SQL ms (median)": statistics.median(sql_ms),
                "CPU ms (median)": statistics.median(cpu_ms),
                "queries": "/".join(str(count) for count in sorted(counts)),
                "rows": rows_shown,
            }
        )
    return rows


def report(title: str, rows: list[dict[str, Any]]) -> None:
    print(f"\n{title:<38}{'median ms':>10}{'p95 ms':>9}{'SQL ms':>9}{'CPU ms':>9}{'queries':>9}{'rows':>6}")
    for row in rows:
        print(
            f"{row['case']:<38}{row['median ms']:>10.1f}{row['p95 ms']:>9.1f}{row['SQL ms (median)']:>9.1f}"
            f"{row['CPU ms (median)']:>9.1f}{row['queries']:>9}{row['rows']:>6}"
        )
    print("(SQL ms: the queries' time as Django saw it, median; CPU ms: this process's CPU per request, median)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100_000, help="runs to load")
    parser.add_argument("--experiment-trials", type=int, default=25, help="trials per cell of the two experiments")
    parser.add_argument("--requests", type=int, default=50, help="measured requests per case")
    parser.add_argument("--reuse", action="store_true", help="keep a database already loaded with --runs runs")
    args = parser.parse_args()
    fresh = prepare_environment(args.reuse, args.runs)

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    loaded = load(args.runs, args.experiment_trials) if fresh else {}
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        version = cursor.fetchone()[0].split(" on ")[0]
    load_before = os.getloadavg()[0]
    runs_list = measure(runs_list_cases(), args.requests)
    experiments = measure(experiment_cases(), args.requests)

    print(f"{args.runs:,} runs in {version}, {args.requests} requests per case (Django test client,")
    averages = f"{load_before:.1f} before, {os.getloadavg()[0]:.1f} after"
    print(f"logged in, DEBUG=1), {os.cpu_count()} CPUs, 1-minute load average {averages} measuring")
    if loaded:
        print("load: " + ", ".join(f"{name} {value:,.1f}" for name, value in loaded.items()))
    report("Runs list", runs_list)
    report("Experiment pages", experiments)
    print()
    for title, rows in (
        ("runs list", runs_list),
        ("experiment page", experiments[:2]),
        ("compare page", experiments[2:]),
    ):
        worst = max(row["p95 ms"] for row in rows)
        queries = ", ".join(sorted({row["queries"] for row in rows}, key=lambda text: int(text.split("/")[0])))
        print(f"headline: {title} p95, worst case, {args.runs:,} runs = {worst:.1f} ms (target < 150 ms)")
        print(f"          {title} SQL queries per page: {queries} (target: the same whatever the data)")


if __name__ == "__main__":
    main()
