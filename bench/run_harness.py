"""The harness's own time per run: what EvalHub adds around the model and the MCP server.

    .venv/bin/python bench/run_harness.py [--runs 200] [--database-url postgres://…] [--scale-samples 10]

Each run is the product's path minus Celery: `run_start` creates the queued run (its task is not sent), then
`pipeline.execute_run` executes it in this process, with the offline model and the bundled demo server over
stdio (a fresh server process per run, as in production). For every run:

    total   = wall-clock time of execute_run (claim → connect → act → record → score)
    model   = sum of run.model_calls[*].latency_ms       (as recorded, whole milliseconds)
    tool    = sum of run.all_tool_calls[*].durationMs    (as recorded, whole milliseconds)
    harness = total - model - tool

The split of the harness time is measured from outside: this script wraps the pipeline's steps (connect,
list tools, the recorder's saves, claim, finish, score…) with timers; no production module is changed.
"other" is what no wrapper covers (the event loop, thread hand-offs, the agent's bookkeeping).
Headline, as issue 5 defines it: the harness's own time per run (total minus model and tool time), median and p95.
Medians and p95 use the nearest-rank method. SQLite (the default install) under EVALHUB_VAR_DIR unless
--database-url names another database, which is dropped and recreated if it is PostgreSQL.
"""

from __future__ import annotations

import argparse
import inspect
import math
import os
import statistics
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
VAR_DIR = Path(os.environ.setdefault("EVALHUB_VAR_DIR", "/tmp/evalhub-bench"))


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[max(math.ceil(pct / 100 * len(ordered)) - 1, 0)]


def prepare_environment(database_url: str | None, sqlite_name: str = "harness.sqlite3") -> str:
    """Point Django at a fresh bench database before it is imported; return a printable name of it."""
    VAR_DIR.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalhub.settings")
    os.environ.setdefault("DEBUG", "1")
    os.environ.setdefault("LOG_LEVEL", "WARNING")
    os.environ["EVALHUB_DAILY_RUN_QUOTA"] = "100000000"
    os.environ["EVALHUB_CELERY_QUEUE"] = f"bench-{uuid.uuid4().hex[:8]}"
    if database_url is None:
        path = VAR_DIR / sqlite_name
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        os.environ["DATABASE_URL"] = f"sqlite:///{path}"
        return f"SQLite {path}"
    os.environ["DATABASE_URL"] = database_url
    if database_url.startswith("postgres"):
        recreate_postgres_database(database_url)
    return database_url.split("@")[-1]  # never its credentials


def recreate_postgres_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    name = url.rsplit("/", 1)[1].split("?")[0]
    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


class Timers:
    """Per-run accumulators: seconds and call counts per named segment."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, int] = defaultdict(int)

    def add(self, name: str, seconds: float) -> None:
        self.seconds[name] += seconds
        self.calls[name] += 1

    def reset(self) -> None:
        self.seconds.clear()
        self.calls.clear()


TIMERS = Timers()


def timed(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            TIMERS.add(name, time.perf_counter() - started)

    return wrapper


def timed_async(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await function(*args, **kwargs)
        finally:
            TIMERS.add(name, time.perf_counter() - started)

    return wrapper


class TimedConnect:
    """Wraps `connect(config)`: entering is spawn + MCP handshake, leaving is session close + process kill."""

    def __init__(self, real: Callable[..., Any], config: Any) -> None:
        self.inner = real(config)

    async def __aenter__(self) -> Any:
        started = time.perf_counter()
        try:
            return await self.inner.__aenter__()
        finally:
            TIMERS.add("server start + handshake", time.perf_counter() - started)

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> bool | None:
        started = time.perf_counter()
        try:
            return await self.inner.__aexit__(kind, exc, tb)  # type: ignore[no-any-return]
        finally:
            TIMERS.add("server shutdown", time.perf_counter() - started)


def wrap(owner: Any, name: str, label: str) -> None:
    """Time `owner.name` (a function or method, sync or async) under `label`, if it exists in this version."""
    function = getattr(owner, name, None)
    if function is None:
        return
    wrapper = timed_async if inspect.iscoroutinefunction(function) else timed
    setattr(owner, name, wrapper(label, function))


def instrument() -> None:
    """Wrap the pipeline's steps with timers (this process only)."""
    from evalhub.mcp_client.connection import Connection
    from evalhub.model_client.client import ProviderClient
    from evalhub.providers.models import Provider
    from evalhub.servers.models import McpServer
    from runs import pipeline, server_connection
    from runs.recorder import Recorder

    # The run's connection is opened in runs/server_connection.py (fresh, or lent by the warm pool).
    real_connect = server_connection.connect
    server_connection.connect = lambda config: TimedConnect(real_connect, config)  # type: ignore[assignment]
    wrap(Connection, "list_tools", "list tools")
    wrap(Connection, "call_tool", "tool call (measured)")
    wrap(ProviderClient, "chat", "model call (measured)")
    wrap(ProviderClient, "__init__", "provider client open/close")
    wrap(ProviderClient, "__exit__", "provider client open/close")
    wrap(McpServer, "to_config", "configs + secrets")
    wrap(Provider, "to_config", "configs + secrets")
    wrap(pipeline, "claim", "DB: claim")
    # The recorder's writes: sync methods in some versions, async ones that hop to a DB thread in others.
    wrap(pipeline, "_record_snapshot", "DB: tool snapshot")
    wrap(Recorder, "_tools_listed", "DB: tool snapshot")
    wrap(Recorder, "_save", "DB: recorder saves")
    wrap(Recorder, "cancel_requested", "DB: cancel checks")
    wrap(Recorder, "close", "DB: recorder close")
    wrap(pipeline, "score_run", "DB: score")
    wrap(pipeline, "_finish", "DB: finish")  # minus the score step it calls, below


def server_process_alone(times: int) -> tuple[float, float]:
    """Median ms of a bare interpreter and of one that imports the demo server (no MCP session): the server's own
    start-up cost, which the harness pays on every stdio run but cannot make smaller."""
    import subprocess

    def median_ms(code: str) -> float:
        timings = []
        for _ in range(times):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
            timings.append((time.perf_counter() - started) * 1000)
        return statistics.median(timings)

    return median_ms("pass"), median_ms("import evalhub.demo_server.server")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=3, help="runs executed first and not counted")
    parser.add_argument("--database-url", help="default: a fresh SQLite file under EVALHUB_VAR_DIR")
    parser.add_argument("--scale-samples", type=int, default=10, help="interpreter starts timed for scale")
    args = parser.parse_args()
    database = prepare_environment(args.database_url)

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)

    from django.contrib.auth.models import User

    from runs import pipeline, services
    from runs.models import Run
    from tests.base import make_demo_server, make_scenario

    # No broker round trip here: this script executes each run itself (run_throughput.py measures the worker).
    services.execute_run.delay = lambda run_id: None  # type: ignore[method-assign]
    user = User.objects.create_user("bench")
    scenario = make_scenario(make_demo_server())
    instrument()

    rows: list[dict[str, float]] = []
    calls: dict[str, list[int]] = defaultdict(list)
    for index in range(args.warmup + args.runs):
        run = services.run_start(scenario=scenario, user=user)
        TIMERS.reset()
        started = time.perf_counter()
        pipeline.execute_run(run.pk, worker="bench")
        total = (time.perf_counter() - started) * 1000
        run = Run.objects.get(pk=run.pk)
        if run.status != Run.Status.DONE or run.score != 1.0:
            raise SystemExit(f"Run {run.pk} ended {run.status} ({run.error}); the benchmark needs passing runs.")
        if index < args.warmup:
            continue
        model = sum(call["latency_ms"] for call in run.model_calls)
        tool = sum(call["durationMs"] for call in run.all_tool_calls)
        row = {"total": total, "model (recorded)": model, "tool (recorded)": tool, "harness": total - model - tool}
        row["run.duration_ms"] = float(run.duration_ms or 0)
        segments = {name: seconds * 1000 for name, seconds in TIMERS.seconds.items()}
        if "DB: finish" in segments:
            segments["DB: finish"] -= segments.get("DB: score", 0.0)
        row.update(segments)
        measured = segments.get("model call (measured)", 0.0) + segments.get("tool call (measured)", 0.0)
        row["other"] = total - sum(v for k, v in segments.items())
        row["harness (measured model/tool)"] = total - measured
        row["harness excl. server start/stop"] = (
            row["harness"] - segments["server start + handshake"] - segments["server shutdown"]
        )
        rows.append(row)
        for name, count in TIMERS.calls.items():
            calls[name].append(count)

    print(f"Harness time per run — {args.runs} runs (after {args.warmup} warm-up), offline model, demo server over")
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"stdio, {database}, Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load}\n")
    print(f"{'ms per run':<34}{'median':>9}{'p95':>9}{'mean':>9}")
    headline = ["total", "model (recorded)", "tool (recorded)", "harness", "harness excl. server start/stop"]
    headline.append("run.duration_ms")
    for name in headline:
        values = [row[name] for row in rows]
        print(
            f"{name:<34}{statistics.median(values):>9.1f}{percentile(values, 95):>9.1f}{statistics.mean(values):>9.1f}"
        )

    bare, demo = server_process_alone(args.scale_samples)
    print(
        f"\nFor scale, outside any run: `python -c pass` {bare:.0f} ms; "
        f"`python -c 'import evalhub.demo_server.server'` (the MCP SDK) {demo:.0f} ms."
    )
    print(f"\n{'harness split (measured from outside)':<34}{'median':>9}{'p95':>9}{'mean':>9}{'share':>8}{'calls':>7}")
    harness_mean = statistics.mean(row["harness (measured model/tool)"] for row in rows)
    split = [k for k in rows[0] if k not in headline and "measured" not in k and k != "other"]
    split.sort(key=lambda k: -statistics.mean(row.get(k, 0.0) for row in rows))
    for name in [*split, "other", "model call (measured)", "tool call (measured)", "harness (measured model/tool)"]:
        values = [row.get(name, 0.0) for row in rows]
        mean = statistics.mean(values)
        share = f"{mean / harness_mean:>7.1%}" if "measured" not in name else ""
        count = f"{statistics.median(calls[name]):>7.0f}" if calls.get(name) else ""
        median, p95 = statistics.median(values), percentile(values, 95)
        print(f"{name:<34}{median:>9.2f}{p95:>9.2f}{mean:>9.2f}{share:>8}{count}")

    harness = [row["harness"] for row in rows]
    print(f"\nheadline: harness time per run, median = {statistics.median(harness):.1f} ms")
    print(f"headline: harness time per run, p95 = {percentile(harness, 95):.1f} ms")


if __name__ == "__main__":
    main()
