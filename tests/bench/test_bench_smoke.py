"""Every bench under bench/ at a tiny size (issue 31): it exits 0 and prints its headline figure as a number.

A bench that nobody runs breaks silently when the schema moves under it (runs_list_pg.py's COPY loader did, on a new
NOT NULL column). These run each bench as a new contributor would, as a subprocess, in seconds.

Each tier of CI runs each bench once: on the embedded defaults (tier 1) the SQLite variant; against PostgreSQL
(tier 2, DATABASE_URL names the test PostgreSQL) the PostgreSQL variant, and the benches that only exist on
PostgreSQL. Benches that touch no database run in tier 1 only. Every bench gets its own database (a uniquely named
one on the test PostgreSQL server, dropped afterwards, or SQLite under the test's temporary EVALHUB_VAR_DIR), its own
task queue (each bench names one at random) and free ports, so parallel pytest processes never collide.
"""

from __future__ import annotations

import os
import re
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.base import PROJECT_DIR, PYTHON

TEST_DATABASE_URL = os.environ.get("DATABASE_URL", "")
ON_POSTGRES = TEST_DATABASE_URL.startswith(("postgres://", "postgresql://"))
BROKER_URL = os.environ.get("CELERY_BROKER_URL", "")
HEADLINE = re.compile(r"^headline: (?P<what>.+?) = (?P<value>-?\d[\d,]*(?:\.\d+)?)", re.MULTILINE)

needs_postgres = pytest.mark.skipif(
    not ON_POSTGRES, reason="a PostgreSQL bench: runs in tier 2 (DATABASE_URL=postgres://…)"
)
needs_broker = pytest.mark.skipif(
    not (ON_POSTGRES and BROKER_URL.startswith("redis://")),
    reason="starts Celery workers on PostgreSQL + Redis: runs in tier 2 (CELERY_BROKER_URL=redis://…)",
)
no_database = pytest.mark.skipif(ON_POSTGRES, reason="touches no database: tier 1 runs it")


@pytest.fixture
def bench_env(tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment of one bench: its own EVALHUB_VAR_DIR and, on PostgreSQL, its own database (dropped after)."""
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env.update(EVALHUB_VAR_DIR=str(tmp_path), PYTHONUNBUFFERED="1", DJANGO_SETTINGS_MODULE="evalhub.settings")
    # Benches that make temporary folders of their own (mkdtemp) leave them here, where pytest cleans up.
    env["TMPDIR"] = str(tmp_path)
    if not ON_POSTGRES:
        yield env
        return
    server = TEST_DATABASE_URL.split("?")[0].rsplit("/", 1)[0]
    env["DATABASE_URL"] = f"{server}/evalhub_smoke_{uuid.uuid4().hex[:10]}"
    try:
        yield env
    finally:
        drop_database(env["DATABASE_URL"])


def drop_database(url: str) -> None:
    import psycopg
    from psycopg import sql

    server, name = url.rsplit("/", 1)
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def run_bench(env: dict[str, str], script: str, *args: str, timeout: float = 240) -> str:
    """Run bench/`script` with `args`; its output, after asserting that it exited 0."""
    done = subprocess.run(
        [PYTHON, f"bench/{script}", *args],
        cwd=PROJECT_DIR,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, f"bench/{script} exited {done.returncode}:\n{output[-4000:]}"
    return output


def headline(output: str, what: str) -> float:
    """The number of the `headline: <what…> = <number>` line whose text contains `what`."""
    for match in HEADLINE.finditer(output):
        if what in match["what"]:
            return float(match["value"].replace(",", ""))
    raise AssertionError(f"no headline containing {what!r} in:\n{output[-4000:]}")


class NoDatabaseBenchTests:
    @no_database
    def test_inspect_demo(self, bench_env: dict[str, str]) -> None:
        output = run_bench(bench_env, "inspect_demo.py", "--runs", "1")
        assert headline(output, "over stdio, median") > 0
        assert headline(output, "over http, median") > 0

    @no_database
    def test_offline_accuracy(self, bench_env: dict[str, str]) -> None:
        output = run_bench(bench_env, "offline_accuracy.py", "--latency-calls", "3")
        assert 0 < headline(output, "offline model accuracy") <= 100

    @no_database
    def test_scorer_latency(self, bench_env: dict[str, str]) -> None:
        output = run_bench(bench_env, "scorer_latency.py", "--runs", "3", "--node-runs", "1")
        assert headline(output, "median") > 0
        assert headline(output, "p99") > 0


@pytest.mark.services
class RunBenchTests:
    def test_run_harness(self, bench_env: dict[str, str]) -> None:
        args = ["--runs", "1", "--warmup", "0", "--scale-samples", "1"]
        if ON_POSTGRES:
            args += ["--database-url", bench_env["DATABASE_URL"]]
        output = run_bench(bench_env, "run_harness.py", *args)
        assert headline(output, "harness time per run, median") > 0
        assert headline(output, "harness time per run, p95") > 0

    def test_event_stream(self, bench_env: dict[str, str]) -> None:
        args = ["--events", "30", "--rate", "100", "--idle-streams", "2", "--idle-seconds", "0.5"]
        if ON_POSTGRES:
            args += ["--database", "postgres", "--database-url", bench_env["DATABASE_URL"]]
        output = run_bench(bench_env, "event_stream.py", *args)
        assert headline(output, "delivery p50") >= 0
        headline(output, "CPU added by 2 open streams")  # a difference of two readings: any sign

    def test_replay_demo(self, bench_env: dict[str, str]) -> None:
        args = ["--tiny"] + (["--database-url", bench_env["DATABASE_URL"]] if ON_POSTGRES else [])
        output = run_bench(bench_env, "replay_demo.py", *args)
        assert "every replay got its run's verdict: True" in output
        assert 0 < headline(output, "offline replay duration") < headline(output, "recorded run duration")
        assert headline(output, "cassette size") > 0

    def test_stdio_warm(self, bench_env: dict[str, str]) -> None:
        args = ["--tiny"] + (["--database-url", bench_env["DATABASE_URL"]] if ON_POSTGRES else [])
        output = run_bench(bench_env, "stdio_warm.py", *args)
        assert headline(output, "runs per minute, fresh process per run") > 0
        assert headline(output, "runs per minute, warm reuse") > 0
        assert headline(output, "warm reuse / fresh process, runs per minute") > 0
        assert "verdicts per scenario: the same in both modes" in output

    @pytest.mark.worker
    def test_worker_concurrency(self, bench_env: dict[str, str]) -> None:
        if ON_POSTGRES and not BROKER_URL.startswith("redis://"):
            pytest.skip("its PostgreSQL tier needs the Redis broker: CELERY_BROKER_URL=redis://…")
        tier = "postgres" if ON_POSTGRES else "embedded"
        tiny = ["--sizes", "2", "--in-flight", "2", "--delay", "0.05", "--pickups", "2", "--processes", "1"]
        args = ["--tier", tier, *tiny]
        output = run_bench(bench_env, "worker_concurrency.py", *args)
        assert headline(output, "effective concurrency, 2 runs") > 0
        assert headline(output, "worker CPU per run (ms), 2 runs") > 0


@pytest.mark.services
class PostgresBenchTests:
    @needs_postgres
    def test_runs_list_pg(self, bench_env: dict[str, str]) -> None:
        args = ["--runs", "500", "--experiment-trials", "1", "--requests", "1"]
        output = run_bench(bench_env, "runs_list_pg.py", *args)
        assert headline(output, "runs list p95") > 0
        assert headline(output, "experiment page p95") > 0
        assert headline(output, "compare page p95") > 0

    @needs_postgres
    def test_experiment_pages(self, bench_env: dict[str, str]) -> None:
        args = ["pages", "--page-scenarios", "2", "--page-trials", "1", "--requests", "1"]
        output = run_bench(bench_env, "experiment_bench.py", *args)
        assert headline(output, "experiment page p95") > 0
        assert headline(output, "compare page p95") > 0

    @needs_broker
    @pytest.mark.worker
    def test_experiment_run(self, bench_env: dict[str, str]) -> None:
        args = ["run", "--scenarios", "1", "--trials", "1", "--concurrency", "1"]
        output = run_bench(bench_env, "experiment_bench.py", *args)
        assert headline(output, "experiment wall time, 2 runs") > 0
        assert headline(output, "wall time / sum") > 0

    @needs_broker
    @pytest.mark.worker
    def test_run_throughput(self, bench_env: dict[str, str]) -> None:
        output = run_bench(bench_env, "run_throughput.py", "--runs", "2", "--workers", "1")
        assert headline(output, "runs completed per minute, 1 worker") > 0
