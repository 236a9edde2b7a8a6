"""How many runs the worker, started as `make run` starts it, carries at once; its CPU per run; how fast it picks
runs up.

    .venv/bin/python bench/worker_concurrency.py [--tier embedded|postgres|both] [--sizes 40,200] [--in-flight 50]
        [--processes N]  # worker processes (default: as make run, one per core)
        [--single]       # one `celery -A evalhub worker` process instead, as make run started it before issue 30
        [--profile DIR]  # one worker process under cProfile, every thread (bench/profiled.py); prints the top

Each tier gets a fresh database (embedded: SQLite and the filesystem broker under a temporary EVALHUB_VAR_DIR;
postgres: DATABASE_URL, default postgres://postgres@127.0.0.1:5432/evalhub_bench_concurrency, dropped and
recreated, and CELERY_BROKER_URL, default redis://127.0.0.1:6379/9) and one worker: `manage.py worker` (one
Celery worker process per core, each on the thread pool and EVALHUB_WORKER_CONCURRENCY of settings.py) with only
a queue and a name of this script's own (so it takes nobody else's tasks).

Every run is one scenario against the demo MCP server over Streamable HTTP (one process for all runs) and a
local OpenAI-compatible endpoint that answers each call after --delay seconds: a get_weather call, then a final
answer, so each run spends 2 x delay waiting on the model.

- Effective concurrency for N runs (issue 30) = N x the model time of one run (2 x delay) / wall time, the wall
  time from the first queued (the batch is queued in one transaction: its commit) to the last finished. Beside
  it, "runs in flight (mean)" = the sum of the runs' own durations / wall time (what this bench printed before:
  it counts a run's harness time and its wait for a thread as concurrency too).
- Worker CPU per run = user + system CPU of the worker's process tree (every process under the one started,
  read from /proc) over the batch, / N.
- Pickup latency = started_at - created_at, p50/p95: of the batch's runs, and of runs started one at a time on
  an idle worker (offline model).
- Harness time per run = a run's duration minus its model time (2 x delay), mean.
- Memory: the worker's RSS (all its processes) idle and with --in-flight runs held in their first model call; on
  PostgreSQL also the database connections the worker holds then.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.process_stats import machine_busy_seconds, rss_kib, tree_cpu_seconds  # noqa: E402

QUEUE = f"bench-{uuid.uuid4().hex[:8]}"
PG_URL = "postgres://postgres@127.0.0.1:5432/evalhub_bench_concurrency"
REDIS_URL = "redis://127.0.0.1:6379/9"


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(math.ceil(pct / 100 * len(ordered)) - 1, 0)]


class Model:
    """An OpenAI-compatible endpoint: a tool call first, the final answer once the model sees the tool's result.

    While `gate` is clear every call waits on it, so a test of memory can hold many runs in their model call.
    """

    def __init__(self, delay: float) -> None:
        from tests.evalhub.model_client.scripted_server import completion, tool_call

        self.gate = threading.Event()
        self.gate.set()
        self.waiting = 0
        lock = threading.Lock()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with lock:
                    model.waiting += 1
                model.gate.wait()
                with lock:
                    model.waiting -= 1
                time.sleep(delay)
                if any(message["role"] == "tool" for message in body["messages"]):
                    answer = completion(content="It is sunny.")
                else:
                    answer = completion(tool_calls=[tool_call("c1", "get_weather", '{"lat": 48.85, "lon": 2.35}')])
                payload = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self._http.request_queue_size = 512
        threading.Thread(target=self._http.serve_forever, daemon=True).start()
        self.base_url = f"http://127.0.0.1:{self._http.server_address[1]}/v1"


def prepare(tier: str) -> None:
    os.environ.update(DEBUG="1", LOG_LEVEL="WARNING", PYTHONUNBUFFERED="1", EVALHUB_CELERY_QUEUE=QUEUE)
    os.environ.update(EVALHUB_DAILY_RUN_QUOTA="100000000", DJANGO_SETTINGS_MODULE="evalhub.settings")
    os.environ["EVALHUB_VAR_DIR"] = tempfile.mkdtemp(prefix=f"evalhub-bench-{tier}-")
    if tier == "postgres":
        import psycopg
        from psycopg import sql

        os.environ.setdefault("DATABASE_URL", PG_URL)
        os.environ.setdefault("CELERY_BROKER_URL", REDIS_URL)
        url = os.environ["DATABASE_URL"]
        with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
            name = sql.Identifier(url.rsplit("/", 1)[1])
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
            conn.execute(sql.SQL("CREATE DATABASE {}").format(name))
    else:
        os.environ.pop("DATABASE_URL", None)
        os.environ.pop("CELERY_BROKER_URL", None)


def start_worker(processes: int | None, profile: Path | None, single: bool) -> tuple[subprocess.Popen[bytes], Path]:
    """The worker as `make run` starts it (`manage.py worker`: a process per core unless --processes says);
    with --profile (under cProfile: a profile is of one process) or --single, one `celery worker` process, as
    `make run` started it before issue 30."""
    log = Path(os.environ["EVALHUB_VAR_DIR"]) / "worker.log"
    if profile or single:
        command = [sys.executable, str(ROOT / "bench" / "profiled.py"), str(profile)] if profile else [sys.executable]
        command += ["-m", "celery", "-A", "evalhub", "worker", "-Q", QUEUE, "-n", f"{QUEUE}@%h"]
    else:
        command = [sys.executable, "manage.py", "worker", "--name", QUEUE]
        command += [*(["--processes", str(processes)] if processes is not None else []), "--", "-Q", QUEUE]
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    return process, log


def wait_finished(ids: list[int], timeout: float) -> None:
    from runs.models import Run

    deadline = time.monotonic() + timeout
    while Run.objects.filter(pk__in=ids).exclude(status__in=Run.FINISHED).exists():
        if time.monotonic() > deadline:
            raise SystemExit(f"{len(ids)} runs did not finish within {timeout:.0f} s.")
        time.sleep(0.02)


def profile_top(path: Path, limit: int = 30) -> str:
    """The functions with the most CPU: own time first, then cumulative (cProfile, every thread merged)."""
    import io
    import pstats

    out = io.StringIO()
    stats = pstats.Stats(str(path), stream=out).strip_dirs()
    stats.sort_stats("tottime").print_stats(limit)
    stats.sort_stats("cumulative").print_stats(limit)
    return out.getvalue()


def batch(scenario: Any, user: Any, count: int, delay: float, worker: int) -> dict[str, Any]:
    from django.db import transaction
    from django.utils import timezone

    from runs.models import Run
    from runs.services import run_start

    # Queued in one transaction, so the batch reaches the worker at once: this measures the worker, not how fast
    # one client can call run_start one by one (reported apart as "queueing").
    committed: list[datetime] = []
    began = time.monotonic()
    cpu_before, busy_before, load = tree_cpu_seconds(worker), machine_busy_seconds(), os.getloadavg()[0]
    with transaction.atomic():
        transaction.on_commit(lambda: committed.append(timezone.now()))  # runs before the runs' own sends
        ids = [run_start(scenario=scenario, user=user).pk for _ in range(count)]
    queueing = time.monotonic() - began
    wait_finished(ids, timeout=600)
    # The worker's last writes (events, cells) follow the run's own; its CPU settles within a moment.
    time.sleep(0.5)
    cpu = tree_cpu_seconds(worker) - cpu_before
    others = machine_busy_seconds() - busy_before - cpu
    elapsed = time.monotonic() - began
    runs = list(Run.objects.filter(pk__in=ids))
    bad = [run for run in runs if run.status != Run.Status.DONE or run.final_text != "It is sunny."]
    if bad:
        raise SystemExit(f"{len(bad)} runs failed, e.g. run {bad[0].pk}: {bad[0].status} {bad[0].error}")
    wall = (max(run.finished_at for run in runs) - committed[0]).total_seconds()
    durations = [run.duration_ms / 1000 for run in runs]
    pickups = [(run.started_at - committed[0]).total_seconds() * 1000 for run in runs]
    return {
        "runs": count,
        "wall s": wall,
        "concurrency": count * 2 * delay / wall,
        "in flight": sum(durations) / wall,
        "cpu ms/run": cpu * 1000 / count,
        "pickups": pickups,
        "harness ms/run": statistics.mean(durations) * 1000 - 2 * delay * 1000,
        "queueing s": queueing,
        "load": load,
        "others cores": others / elapsed,
    }


def pickup(scenario: Any, user: Any, count: int) -> list[float]:
    from runs.models import Run
    from runs.services import run_start

    latencies = []
    for _ in range(count):
        time.sleep(0.3)  # idle: nothing queued, the worker is polling
        run = run_start(scenario=scenario, user=user)
        wait_finished([run.pk], timeout=60)
        run = Run.objects.get(pk=run.pk)
        latencies.append((run.started_at - run.created_at).total_seconds() * 1000)
    return latencies


def held(scenario: Any, user: Any, model: Model, count: int, worker: int) -> dict[str, float]:
    from django.db import connection

    from runs.services import run_start

    idle = rss_kib(worker)
    model.gate.clear()
    ids = [run_start(scenario=scenario, user=user).pk for _ in range(count)]
    deadline = time.monotonic() + 120
    while model.waiting < count:
        if time.monotonic() > deadline:
            raise SystemExit(f"Only {model.waiting} of {count} runs reached their model call.")
        time.sleep(0.05)
    busy = rss_kib(worker)
    connections = -1
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            sql = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
            cursor.execute(sql)
            connections = cursor.fetchone()[0]
    model.gate.set()
    wait_finished(ids, timeout=300)
    return {"idle MiB": idle / 1024, "busy MiB": busy / 1024, "KiB/run": (busy - idle) / count, "db conns": connections}


def run_tier(
    tier: str,
    sizes: list[int],
    in_flight: int,
    delay: float,
    processes: int | None,
    profile: Path | None,
    single: bool,
    pickups: int,
) -> None:
    prepare(tier)
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from evalhub.celery import app
    from evalhub.providers.models import offline_provider
    from evalhub.servers.models import McpServer
    from tests.base import free_port, make_scenario, make_scripted_provider
    from tests.evalhub.mcp_client.helpers import wait_for_port

    call_command("migrate", verbosity=0)
    # Staff: the demo server and the model listen on loopback, which only staff's servers may reach.
    user = User.objects.create_user("bench", is_staff=True)
    model = Model(delay)
    port = free_port()
    demo = subprocess.Popen([sys.executable, "-m", "evalhub.demo_server", "--http", "--port", str(port)], cwd=ROOT)
    profile_out = profile / f"{tier}.pstats" if profile else None
    worker, log = start_worker(processes, profile_out, single)
    try:
        wait_for_port(port, demo)
        server = McpServer.objects.create(
            name="Demo", transport="http", url=f"http://127.0.0.1:{port}/mcp", created_by=user
        )
        provider = make_scripted_provider(model.base_url, timeout=60)
        scenario = make_scenario(server, provider=provider, name="Weather", expected_tools=["get_weather"])
        fast = make_scenario(server, provider=offline_provider(), name="Weather offline")
        pickup(fast, user, min(3, pickups))  # warm-up: the worker is up, imports done, first connections open
        latencies = pickup(fast, user, pickups)
        # Before the batches: RSS only grows back to a high-water mark, so measured after them it would show
        # nothing per run.
        memory = held(scenario, user, model, in_flight, worker.pid)
        results = [batch(scenario, user, size, delay, worker.pid) for size in sizes]
    finally:
        for process in (worker, demo):
            process.terminate()
            process.wait(timeout=60)
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge(QUEUE)
    broker = "filesystem broker, SQLite" if tier == "embedded" else "Redis, PostgreSQL"
    from runs.models import Run

    started = "celery -A evalhub worker" if profile or single else "manage.py worker"
    started += " under cProfile" if profile else ""
    names = sorted({run.worker for run in Run.objects.exclude(worker="")})
    print(f"\n== {tier} ({broker}); worker: {started}, processes {', '.join(names)} (log {log}); {os.cpu_count()} CPUs")
    for row in results:
        pickups = row["pickups"]
        print(
            f"{row['runs']:>4} runs at {delay} s per model call: wall {row['wall s']:.2f} s, effective concurrency "
            f"{row['concurrency']:.1f} (N x {2 * delay:g} s / wall); runs in flight (mean) {row['in flight']:.1f}; "
            f"worker CPU {row['cpu ms/run']:.1f} ms per run; pickup p50 {percentile(pickups, 50):.0f} ms, "
            f"p95 {percentile(pickups, 95):.0f} ms; harness {row['harness ms/run']:.0f} ms per run (queueing them "
            f"took {row['queueing s']:.2f} s before that); load {row['load']:.2f} at the start, others used "
            f"{row['others cores']:.2f} cores meanwhile"
        )
    for row in results:
        # The figures, in the form every bench prints them (tests/bench/test_bench_smoke.py reads them).
        print(f"headline: {tier} effective concurrency, {row['runs']} runs = {row['concurrency']:.1f}")
        print(f"headline: {tier} worker CPU per run (ms), {row['runs']} runs = {row['cpu ms/run']:.1f}")
    print(
        f"pickup on an idle worker ({pickups} runs): p50 {percentile(latencies, 50):.0f} ms, "
        f"p95 {percentile(latencies, 95):.0f} ms, max {max(latencies):.0f} ms"
    )
    print(
        f"worker RSS: idle {memory['idle MiB']:.0f} MiB, {in_flight} in flight {memory['busy MiB']:.0f} MiB "
        f"({memory['KiB/run']:.0f} KiB per run)"
        + (f"; database connections then: {memory['db conns']:.0f}" if memory["db conns"] >= 0 else "")
    )
    if profile_out:
        print(f"profile of the worker, start to stop ({profile_out}; the profiler inflates the CPU figures):")
        print(profile_top(profile_out))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tier", choices=["embedded", "postgres", "both"], default="both")
    parser.add_argument("--sizes", default="40,200", help="batch sizes, comma-separated")
    parser.add_argument("--in-flight", type=int, default=50, help="runs held at once for the memory figure")
    parser.add_argument("--delay", type=float, default=0.5, help="seconds per model call")
    parser.add_argument("--processes", type=int, help="worker processes (default: as make run, one per core)")
    parser.add_argument("--single", action="store_true", help="one `celery worker` process (make run before issue 30)")
    parser.add_argument("--pickups", type=int, default=20, help="runs started one at a time for the idle pickup")
    parser.add_argument("--profile", type=Path, help="a folder for py-spy's samples of the worker (needs py-spy)")
    args = parser.parse_args()
    if args.tier == "both":
        # Settings are read from the environment once per process: each tier in a process of its own.
        for tier in ("embedded", "postgres"):
            subprocess.run([sys.executable, __file__, *sys.argv[1:], "--tier", tier], check=True)
        return
    if args.profile:
        args.profile.mkdir(parents=True, exist_ok=True)
    sizes = [int(size) for size in args.sizes.split(",")]
    run_tier(args.tier, sizes, args.in_flight, args.delay, args.processes, args.profile, args.single, args.pickups)


if __name__ == "__main__":
    main()
