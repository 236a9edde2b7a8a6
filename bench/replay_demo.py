"""Replay vs record on the seeded demo scenarios (issue 28): each run's duration, the durations of its offline and
live-server replays, and its cassette's size; and whether every replay got its run's verdict.

    .venv/bin/python bench/replay_demo.py [--database-url URL] [--tiny]

The demo scenarios use the offline model, so a recorded run's time is mostly its stdio server's start and tool
calls: an offline replay starts no server; a live-server replay starts it and checks its answers. Headlines: the
median durations and the median cassette size.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from run_harness import prepare_environment  # bench/ is the script's folder: its own modules import


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url", help="default: a fresh SQLite file under EVALHUB_VAR_DIR")
    parser.add_argument("--tiny", action="store_true", help="the first demo scenario only (CI's smoke of this bench)")
    args = parser.parse_args()
    database = prepare_environment(args.database_url, "replay.sqlite3")

    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    call_command("seed_demo", verbosity=0)

    from evalhub.scenarios.models import Scenario
    from runs import pipeline
    from runs.cassettes.services import run_replay
    from runs.models import Run
    from runs.services import run_create

    def executed(run: Run) -> Run:
        pipeline.execute_run(run.pk, worker="bench")
        return Run.objects.get(pk=run.pk)

    rows = []
    scenarios = Scenario.objects.filter(level=Scenario.Level.SCENARIO).order_by("name")
    for scenario in scenarios[:1] if args.tiny else scenarios:
        run = executed(run_create(scenario=scenario, user=None))
        offline = executed(run_replay(run=run, user=None, mcp="cassette"))
        live = executed(run_replay(run=run, user=None, mcp="live"))
        rows.append((scenario.name, run, offline, live, run.cassette))
    print(f"Database: {database}")
    print(
        "scenario | recorded ms | offline replay ms | live replay ms | cassette bytes (model/MCP exchanges) | verdicts"
    )
    for name, run, offline, live, cassette in rows:
        print(
            f"{name} | {run.duration_ms} | {offline.duration_ms} | {live.duration_ms} | {cassette.size_bytes} "
            f"({cassette.model_exchanges}/{cassette.mcp_exchanges}) | {run.verdict} {offline.verdict} {live.verdict}"
        )
    same = all(run.verdict == offline.verdict == live.verdict for _, run, offline, live, _ in rows)
    print(f"every replay got its run's verdict: {same}")
    for label, index in (("recorded run", 1), ("offline replay", 2), ("live-server replay", 3)):
        print(f"headline: {label} duration, median ms = {statistics.median(row[index].duration_ms for row in rows)}")
    print(f"headline: cassette size, median bytes = {statistics.median(row[4].size_bytes for row in rows)}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
