"""The Runs list page with 100,000 runs in PostgreSQL: time per request and SQL queries per page.

    .venv/bin/python bench/runs_list_pg.py [--runs 100000] [--requests 50] [--reuse]

Creates (drops and recreates) the database named by DATABASE_URL, default
postgres://postgres@127.0.0.1:5432/evalhub_bench_runs_list, migrates it and loads --runs runs with COPY:
40 scenarios with tags, 6 models, 180 days of history, ~88% done / 7% error / 5% cancelled plus a few queued and
running, and records of realistic size (0-8 tool calls, each result 0.4-3.6 KB as text plus structuredContent,
in the transcript and in tool calls; ~19 KB of JSON per run on average, printed). Then VACUUM ANALYZE, as
autovacuum would after a bulk load.
--reuse keeps a database already loaded with --runs runs.

Each case requests /runs/ through the Django test client, logged in, --requests times after 3 warm-up requests,
and prints the median and p95 (nearest rank) of the whole request, the number of SQL queries and their time.
Targets: p95 < 150 ms, and the same number of queries for every page.
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

from fake_runs import COLUMNS, MODELS, TAGS, TOOLS, WORDS, record, words  # noqa: E402 — bench/ is the script's folder


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


def load(runs: int) -> dict[str, float]:
    """Create the users, scenarios and tags, then COPY `runs` runs in; return sizes and timings."""
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
    for index in range(40):
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
    now = timezone.now()
    span = timedelta(days=180).total_seconds()
    settings_json = {
        scenario.pk: json.dumps(
            {
                "prompt": scenario.prompt,
                "system_prompt": "",
                "max_turns": 10,
                "max_tool_calls": 25,
                "time_limit_seconds": 300,
                "expected_tools": scenario.expected_tools,
                "expected": None,
                "pass_threshold": 0.7,
            }
        )
        for scenario in scenarios
    }
    generated = time.perf_counter()
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg's own cursor: Django has no COPY
        with raw.copy(f"COPY runs_run ({', '.join(COLUMNS)}) FROM STDIN") as copy:
            for index in range(runs):
                scenario = rng.choice(scenarios)
                created = now - timedelta(seconds=span * (1 - index / runs) + 60)
                recent = runs - index
                status = (
                    "queued"
                    if recent <= 5
                    else "running"
                    if recent <= 10
                    else rng.choices(["done", "error", "cancelled"], weights=[88, 7, 5])[0]
                )
                item = rng.choice(pool) if status != "queued" else None
                model = scenario.model if rng.random() < 0.8 else rng.choice(MODELS)
                duration = rng.randint(800, 60_000)
                score: float | None = None
                passed: bool | None = None
                error = None
                if status == "done":
                    score = rng.choice([0.0, 0.33, 0.5, 0.67, 1.0, 1.0, 1.0, 1.0])
                    passed = score >= 0.7
                elif status == "error":
                    passed = False
                    error = json.dumps({"step": "model call 2", "kind": "timeout", "message": "The model timed out."})
                started_at = created + timedelta(milliseconds=rng.randint(20, 3000)) if status != "queued" else None
                finished = (
                    started_at + timedelta(milliseconds=duration) if status in ("done", "error", "cancelled") else None
                )
                copy.write_row(
                    [
                        scenario.pk,
                        status,
                        {"done": "completed", "error": "error", "cancelled": "cancelled"}.get(status, ""),
                        provider.pk,
                        model,
                        server.pk,
                        "",
                        settings_json[scenario.pk],
                        user.pk,
                        created,
                        started_at,
                        finished,
                        # Running rows beat "in the future" so the page's reaper leaves them running while we measure.
                        now + timedelta(days=1) if status == "running" else finished,
                        "celery@bench" if started_at else "",
                        False,
                        item["transcript"] if item else json.dumps({"prompt": scenario.prompt, "steps": []}),
                        item["tool_calls"] if item else "[]",
                        item["tool_calls"] if item else "[]",
                        item["tool_names"] if item else "[]",
                        item["final_text"] if item else "",
                        item["model_calls"] if item else "[]",
                        item["input_tokens"] if item else 0,
                        item["output_tokens"] if item else 0,
                        0,
                        item["cost_usd"] if item else None,
                        duration if finished else None,
                        error,
                        score,
                        passed,
                        "All expected tools were called." if passed else "",
                    ]
                )
        copied = time.perf_counter()
        cursor.execute("VACUUM ANALYZE runs_run")
        cursor.execute("SELECT pg_total_relation_size('runs_run')")
        size = cursor.fetchone()[0]
    return {
        "setup s": generated - started,
        "COPY s": copied - generated,
        "VACUUM ANALYZE s": time.perf_counter() - copied,
        "JSON bytes per run": json_bytes,
        "table MB": size / 1e6,
    }


def cases() -> list[tuple[str, str]]:
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
        ("scenario", f"/runs/?scenario={scenario.pk}"),
        ("tag", f"/runs/?tag={tag}"),
        ("model=gpt-4o", "/runs/?model=gpt-4o"),
        ("model + passed + tag", f"/runs/?model=gpt-4o&passed=yes&tag={tag}"),
        ("date range (30 days)", f"/runs/?date_from={_ago(30)}&date_to={_ago(0)}"),
    ]


def _ago(days: int) -> str:
    from django.utils import timezone

    return str((timezone.now() - timedelta(days=days)).date())


def measure(requests: int) -> list[dict[str, Any]]:
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    client = Client()
    client.force_login(User.objects.get(username="bench"))
    rows = []
    for label, url in cases():
        htmx = url.endswith(" [htmx]")
        path = url.removesuffix(" [htmx]")
        headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
        timings, sql_ms, counts, rows_shown = [], [], set(), 0
        for index in range(3 + requests):
            with CaptureQueriesContext(connection) as queries:
                started = time.perf_counter()
                response = client.get(path, **headers)
                elapsed = (time.perf_counter() - started) * 1000
            if response.status_code != 200:
                raise SystemExit(f"{path} answered {response.status_code}")
            if index < 3:
                continue
            timings.append(elapsed)
            sql_ms.append(sum(float(query["time"]) for query in queries.captured_queries) * 1000)
            counts.add(len(queries))
            rows_shown = response.content.decode().count('<tr id="run-')
        rows.append(
            {
                "case": label,
                "median ms": statistics.median(timings),
                "p95 ms": percentile(timings, 95),
                "SQL ms (median)": statistics.median(sql_ms),
                "queries": "/".join(str(count) for count in sorted(counts)),
                "rows": rows_shown,
            }
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100_000, help="runs to load")
    parser.add_argument("--requests", type=int, default=50, help="measured requests per case")
    parser.add_argument("--reuse", action="store_true", help="keep a database already loaded with --runs runs")
    args = parser.parse_args()
    fresh = prepare_environment(args.reuse, args.runs)

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    loaded = load(args.runs) if fresh else {}
    with connection.cursor() as cursor:
        cursor.execute("SELECT version()")
        version = cursor.fetchone()[0].split(" on ")[0]
    rows = measure(args.requests)

    print(f"Runs list, {args.runs:,} runs in {version}, {args.requests} requests per case (Django test client,")
    print(f"logged in, DEBUG=1), {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    if loaded:
        print("load: " + ", ".join(f"{name} {value:,.1f}" for name, value in loaded.items()))
    print(f"\n{'case':<26}{'median ms':>10}{'p95 ms':>9}{'SQL ms':>9}{'queries':>9}{'rows':>6}")
    for row in rows:
        print(
            f"{row['case']:<26}{row['median ms']:>10.1f}{row['p95 ms']:>9.1f}{row['SQL ms (median)']:>9.1f}"
            f"{row['queries']:>9}{row['rows']:>6}"
        )
    worst = max(row["p95 ms"] for row in rows)
    counts = {row["queries"] for row in rows}
    print(f"\nworst p95 {worst:.1f} ms (target < 150 ms); queries per page: {', '.join(sorted(counts))}")


if __name__ == "__main__":
    main()
