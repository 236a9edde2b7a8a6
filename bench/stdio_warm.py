"""Runs per minute of the demo scenarios over stdio, with a fresh server process per run and with warm reuse.

    .venv/bin/python bench/stdio_warm.py [--rounds 5] [--threads 1] [--recycle-after 20] [--tiny]
                                         [--database-url postgres://…]

Each run is the product's path minus Celery, as in bench/run_harness.py: `run_start` creates the queued run (its
task is not sent), then `pipeline.execute_run` executes it in this process, with the offline model and the bundled
demo server over stdio. The demo scenarios (evalhub/demo.py: `make run`'s seed) are run --rounds times each, first
with the server as it ships (a fresh process per run), then with `warm_reuse` on (processes lent from this
process's warm pool, each recycled after --recycle-after runs). --threads runs that many at once, as a worker's
threads do. One untimed run per mode first (imports, first database connection).

Printed per mode: runs, wall time, runs/minute, the median and p95 of a run's duration and of its server start
(`Run.server_start`), and how many runs passed; then the ratio of the two runs/minute figures. The verdicts must
be the same in both modes: warm reuse changes how fast a run gets its server, not what it records.
--tiny (one round of two scenarios) is the CI smoke. A fresh SQLite file under EVALHUB_VAR_DIR unless
--database-url names another database, which is dropped and recreated if it is PostgreSQL.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from run_harness import percentile, prepare_environment  # bench/ is the script's folder: its own modules import


def execute(scenario: Any, user: Any) -> int:
    from runs import pipeline
    from runs.services import run_start

    run = run_start(scenario=scenario, user=user)
    pipeline.execute_run(run.pk, worker="bench")
    return int(run.pk)


def measure(scenarios: list[Any], user: Any, *, rounds: int, threads: int) -> dict[str, Any]:
    from runs.models import Run

    execute(scenarios[0], user)  # untimed: imports, first connection, the pool's loop
    batch = [scenario for _ in range(rounds) for scenario in scenarios]
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        ids = list(pool.map(lambda scenario: execute(scenario, user), batch))
    elapsed = time.perf_counter() - started
    runs = list(Run.objects.filter(pk__in=ids))
    durations = [float(run.duration_ms or 0) for run in runs]
    starts = [float((run.server_start or {}).get("ms") or 0) for run in runs]
    return {
        "runs": len(runs),
        "elapsed": elapsed,
        "per_minute": len(runs) / elapsed * 60,
        "run_p50": statistics.median(durations),
        "run_p95": percentile(durations, 95),
        "start_p50": statistics.median(starts),
        "start_p95": percentile(starts, 95),
        "warm": sum(1 for run in runs if (run.server_start or {}).get("warm")),
        "passed": sum(1 for run in runs if run.passed),
        "verdicts": sorted((run.scenario.name, run.verdict) for run in runs),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="times each demo scenario is run, per mode")
    parser.add_argument("--threads", type=int, default=1, help="runs carried at once")
    parser.add_argument("--recycle-after", type=int, default=20, help="runs a warm process serves")
    parser.add_argument("--tiny", action="store_true", help="one round of two scenarios (CI smoke)")
    parser.add_argument("--database-url", help="default: a fresh SQLite file under EVALHUB_VAR_DIR")
    args = parser.parse_args()
    database = prepare_environment(args.database_url, sqlite_name=f"stdio-warm-{os.getpid()}.sqlite3")

    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from evalhub import demo
    from evalhub.mcp_client.warm_pool import WARM_POOL
    from evalhub.scenarios.models import Scenario
    from evalhub.servers.models import McpServer

    call_command("migrate", verbosity=0)
    demo.seed_demo_server()
    demo.seed_demo_scenarios()
    user = User.objects.create_user("bench", is_staff=True)
    scenarios = list(Scenario.objects.filter(server__name=demo.DEMO_SERVER).order_by("name"))
    rounds = args.rounds
    if args.tiny:
        scenarios, rounds = scenarios[:2], 1
    server = McpServer.objects.get(name=demo.DEMO_SERVER)

    results = {}
    try:
        for mode, warm in (("fresh process per run", False), ("warm reuse", True)):
            server.warm_reuse, server.warm_recycle_after = warm, args.recycle_after
            server.save(update_fields=["warm_reuse", "warm_recycle_after"])
            results[mode] = measure(scenarios, user, rounds=rounds, threads=args.threads)
            print(f"… {mode}: {results[mode]['per_minute']:.1f} runs/min", flush=True)
    finally:
        WARM_POOL.close()

    print(f"\nDemo scenarios over stdio, offline model — {len(scenarios)} scenarios x {rounds} round(s), ", end="")
    print(f"{args.threads} thread(s), {os.cpu_count()} CPUs, {database}\n")
    columns = ["runs", "wall s", "runs/min", "run p50 ms", "run p95 ms", "start p50", "start p95", "warm", "passed"]
    print(f"{'':>24}" + "".join(f"{name:>12}" for name in columns))
    for mode, row in results.items():
        values = [row["runs"], row["elapsed"], row["per_minute"], row["run_p50"], row["run_p95"]]
        values += [row["start_p50"], row["start_p95"], row["warm"], row["passed"]]
        print(
            f"{mode:>24}"
            + "".join(f"{value:>12.1f}" if isinstance(value, float) else f"{value:>12}" for value in values)
        )
    fresh, warm = results["fresh process per run"], results["warm reuse"]
    print(f"\nheadline: runs per minute, fresh process per run = {fresh['per_minute']:.1f}")
    print(f"headline: runs per minute, warm reuse = {warm['per_minute']:.1f}")
    print(f"headline: warm reuse / fresh process, runs per minute = {warm['per_minute'] / fresh['per_minute']:.2f}")
    same = fresh["verdicts"] == warm["verdicts"]
    print(f"verdicts per scenario: {'the same in both modes' if same else 'DIFFERENT between the modes'}")
    print("start: Run.server_start ms (the wait for the server: process start + handshake, 0 when lent warm)")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
