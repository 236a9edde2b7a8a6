"""Runs completed per minute by real Celery worker processes, on PostgreSQL and Redis.

    .venv/bin/python bench/run_throughput.py [--runs 100] [--workers 1,4] [--pool prefork|solo]

The database named by DATABASE_URL (default postgres://postgres@127.0.0.1:5432/evalhub_bench) is dropped and
recreated; the broker is CELERY_BROKER_URL (default redis://127.0.0.1:6379/5). Tasks go to a queue of this
script's own (EVALHUB_CELERY_QUEUE=bench-<random>), so its workers never take anyone else's tasks and nobody
else's worker takes its tasks. The queue is deleted at the end.

For each worker count N: start the workers (`--pool prefork`: one `celery -A evalhub worker --concurrency N`,
as the README deploys it; `--pool solo`: N separate `--pool=solo` worker processes), warm them up with 2N runs,
then start --runs runs at once through `run_start` (quota, DB row, task on commit) and wait until every one has
finished. Headline, as issue 5 asks ("runs completed per minute with 1 and with 4 worker processes"): runs per
minute = runs / (the last run's finished_at - the first run's created_at, i.e. from queued to all done). Each run
is the offline model and the demo MCP server over stdio, so every run spawns one server process.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
VAR_DIR = Path(os.environ.setdefault("EVALHUB_VAR_DIR", "/tmp/evalhub-bench"))
QUEUE = f"bench-{uuid.uuid4().hex[:8]}"


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(math.ceil(pct / 100 * len(ordered)) - 1, 0)]


def prepare_environment() -> None:
    """Set the variables Django and the workers read; recreate the bench database."""
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/evalhub_bench")
    os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/5")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalhub.settings")
    os.environ.setdefault("DEBUG", "1")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ["EVALHUB_DAILY_RUN_QUOTA"] = "100000000"
    os.environ["EVALHUB_CELERY_QUEUE"] = QUEUE
    os.environ["PYTHONUNBUFFERED"] = "1"
    recreate_postgres_database(os.environ["DATABASE_URL"])


def recreate_postgres_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    name = url.rsplit("/", 1)[1].split("?")[0]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def delete_queue() -> None:
    """Drop this script's queue, and what kombu's Redis transport leaves behind of it (its binding sets)."""
    from evalhub.celery import app

    with app.connection_for_write() as conn:
        channel = conn.default_channel
        channel.queue_purge(QUEUE)
        channel.queue_delete(QUEUE)
        channel.client.delete(f"_kombu.binding.{QUEUE}", f"_kombu.binding_permanent.{QUEUE}")


class Workers:
    """The worker processes of one measurement. Each is its own session, so stopping it stops its children."""

    def __init__(self, count: int, pool: str) -> None:
        self.names: list[str] = []
        self.processes: list[subprocess.Popen[bytes]] = []
        commands = (
            [("prefork", ["--pool=prefork", f"--concurrency={count}"])]
            if pool == "prefork"
            else [(f"solo{index}", ["--pool=solo"]) for index in range(count)]
        )
        for label, options in commands:
            name = f"{QUEUE}-{count}-{label}@%h"
            log = (VAR_DIR / "logs" / f"{QUEUE}-{count}-{label}.log").open("wb")
            command = [sys.executable, "-m", "celery", "-A", "evalhub", "worker", *options, "-Q", QUEUE, "-n", name]
            command += ["--without-mingle", "--without-gossip", "--loglevel=WARNING"]
            self.processes.append(
                subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            )
            self.names.append(name.replace("%h", os.uname().nodename))

    def wait_ready(self, timeout: float = 120) -> None:
        from evalhub.celery import app

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(process.poll() is not None for process in self.processes):
                raise SystemExit(f"A worker exited at start-up; see {VAR_DIR / 'logs'}.")
            replies = app.control.ping(destination=self.names, timeout=1.0)
            if len(replies) == len(self.names):
                return
        raise SystemExit("The workers did not answer a ping in time.")

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in self.processes:
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def start_and_wait(count: int, scenario: object, user: object, timeout: float) -> list[int]:
    from runs.models import Run
    from runs.services import run_start

    ids = [run_start(scenario=scenario, user=user).pk for _ in range(count)]  # type: ignore[arg-type]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not Run.objects.filter(pk__in=ids).exclude(status__in=Run.FINISHED).exists():
            return ids
        time.sleep(0.1)
    raise SystemExit(f"{count} runs did not finish within {timeout:.0f} s.")


def measure(count: int, pool: str, runs: int, scenario: object, user: object) -> dict[str, float]:
    from runs.models import Run

    workers = Workers(count, pool)
    try:
        workers.wait_ready()
        start_and_wait(2 * count, scenario, user, timeout=300)  # warm-up: imports, first connections
        load_before = os.getloadavg()[0]
        ids = start_and_wait(runs, scenario, user, timeout=60 * 60)
    finally:
        workers.stop()
    finished = list(Run.objects.filter(pk__in=ids).order_by("pk"))
    bad = [run for run in finished if run.status != Run.Status.DONE or not run.passed]
    if bad:
        raise SystemExit(f"{len(bad)} runs did not pass, e.g. run {bad[0].pk}: {bad[0].status} {bad[0].error}")
    first_created = min(run.created_at for run in finished)
    last_finished = max(run.finished_at for run in finished if run.finished_at)
    elapsed = (last_finished - first_created).total_seconds()
    in_worker = [float(run.duration_ms or 0) for run in finished]
    waits = [(run.started_at - run.created_at).total_seconds() for run in finished if run.started_at]
    return {
        "workers": count,
        "runs": runs,
        "elapsed s": elapsed,
        "runs/min": runs / elapsed * 60,
        "run p50 ms": statistics.median(in_worker),
        "run p95 ms": percentile(in_worker, 95),
        "max wait s": max(waits),
        "load before": load_before,
        "load after": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100, help="measured runs per worker count")
    parser.add_argument("--workers", default="1,4", help="worker process counts, comma-separated")
    parser.add_argument("--pool", choices=["prefork", "solo"], default="prefork")
    args = parser.parse_args()
    prepare_environment()
    (VAR_DIR / "logs").mkdir(exist_ok=True)

    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from tests.base import make_demo_server, make_scenario

    call_command("migrate", verbosity=0)
    user = User.objects.create_user("bench")
    scenario = make_scenario(make_demo_server())

    results = []
    try:
        for count in (int(value) for value in args.workers.split(",")):
            results.append(measure(count, args.pool, args.runs, scenario, user))
            print(f"… {count} worker process(es): {results[-1]['runs/min']:.1f} runs/min", flush=True)
    finally:
        delete_queue()

    print(f"\nRuns completed per minute — offline model, demo server over stdio, {args.pool} pool,")
    print(f"PostgreSQL + Redis, {os.cpu_count()} CPUs (1-min load average shown before/after each measurement)\n")
    columns = ["workers", "runs", "elapsed s", "runs/min", "run p50 ms", "run p95 ms", "max wait s"]
    columns += ["load before", "load after"]
    print("".join(f"{name:>12}" for name in columns))
    for row in results:
        print(
            "".join(f"{row[name]:>12.0f}" if name in ("workers", "runs") else f"{row[name]:>12.1f}" for name in columns)
        )
    print("\nrun p50/p95: run.duration_ms inside the worker; max wait: the longest a run stayed queued.")
    for row in results:
        print(f"headline: runs completed per minute, {row['workers']} worker process(es) = {row['runs/min']:.1f}")


if __name__ == "__main__":
    main()
