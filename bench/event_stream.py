"""How fast the live event stream delivers, and that a client resuming with Last-Event-ID loses nothing.

    .venv/bin/python bench/event_stream.py [--events 2000] [--rate 200] [--database sqlite|postgres]
        [--database-url postgres://…] [--idle-streams 50] [--idle-seconds 10]

A fresh database (SQLite under a temporary EVALHUB_VAR_DIR, or a dropped and recreated PostgreSQL database:
--database-url, default evalhub_bench_events) and a real web server (`manage.py runserver`, threaded, as
`make run` starts it). This process writes --events run.step events at --rate per second through
runs.events.publish, as the worker does, while a client reads GET /api/v1/events over HTTP with an API key. Printed:

- delivery latency (event written → read by the client): p50, p95, max;
- resume: the client drops the connection a third of the way in and reconnects with Last-Event-ID; every event
  must arrive exactly once and in order;
- a second client following one run only: how many events it read (those of its run, no others);
- the web process's CPU while idle for --idle-seconds, with no stream open and then with --idle-streams open.

Headline figures, as issue 30 defines them: p50 delivery (goal ≤ 50 ms), and the CPU that 50 open streams add to an
idle web process, in % of one core (goal < 5 %).
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PG_URL = "postgres://postgres@127.0.0.1:5432/evalhub_bench_events"


def cpu_seconds(pid: int) -> float:
    """User and system CPU time of process `pid` so far (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def idle_cpu(pid: int, seconds: float) -> float:
    """The share of one core process `pid` uses over `seconds`."""
    before = cpu_seconds(pid)
    time.sleep(seconds)
    return (cpu_seconds(pid) - before) / seconds


def open_streams(url: str, key: str, count: int) -> list[httpx.Response]:
    client = httpx.Client(headers={"Authorization": f"Bearer {key}"}, timeout=60)
    streams = []
    for _ in range(count):
        answer = client.send(client.build_request("GET", f"{url}?keepalive=15"), stream=True)
        assert answer.status_code == 200, answer.read()
        next(answer.iter_lines())  # the stream is being served
        streams.append(answer)
    return streams


def percentile(values: list[float], pct: float) -> float:
    ordered = sorted(values)
    return ordered[max(math.ceil(pct / 100 * len(ordered)) - 1, 0)]


def prepare(database: str, url: str) -> None:
    os.environ.update(DEBUG="1", LOG_LEVEL="WARNING", DJANGO_SETTINGS_MODULE="evalhub.settings")
    os.environ["EVALHUB_VAR_DIR"] = tempfile.mkdtemp(prefix="evalhub-bench-events-")
    os.environ["EVALHUB_API_RATE_LIMIT"] = "1000000"
    os.environ.pop("DATABASE_URL", None)
    if database == "postgres":
        import psycopg
        from psycopg import sql

        os.environ["DATABASE_URL"] = url
        with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
            name = sql.Identifier(url.rsplit("/", 1)[1])
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(name))
            conn.execute(sql.SQL("CREATE DATABASE {}").format(name))


class Reader(threading.Thread):
    """Reads the stream; drops the connection once after `drop_after` events and resumes with Last-Event-ID."""

    def __init__(self, url: str, key: str, *, query: str, until: int, drop_after: int | None) -> None:
        super().__init__(daemon=True)
        self.url, self.key, self.query, self.until, self.drop_after = url, key, query, until, drop_after
        self.received: list[tuple[int, int, float]] = []  # (event id, sequence number, read at)
        self.reconnects = 0
        self.connected = threading.Event()

    def run(self) -> None:
        from runs.events.sse import parse

        last: int | None = None
        while len(self.received) < self.until:
            headers = {"Authorization": f"Bearer {self.key}"}
            if last is not None:
                headers["Last-Event-ID"] = str(last)
                self.reconnects += 1
            with httpx.stream("GET", f"{self.url}?keepalive=1&{self.query}", headers=headers, timeout=60) as answer:
                for item in parse(answer.iter_lines()):
                    self.connected.set()
                    if item is None:
                        continue
                    assert item.id is not None
                    self.received.append((item.id, item.data["n"], time.time()))
                    last = item.id
                    if len(self.received) >= self.until:
                        return
                    if self.drop_after is not None and len(self.received) == self.drop_after:
                        self.drop_after = None
                        break  # the connection is dropped here; the loop reconnects with Last-Event-ID


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--rate", type=float, default=200.0, help="events written per second")
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--database-url", default=PG_URL, help="with --database postgres: dropped and recreated")
    parser.add_argument("--idle-streams", type=int, default=50, help="streams held open while the server idles")
    parser.add_argument("--idle-seconds", type=float, default=10.0, help="how long each idle CPU figure is taken")
    args = parser.parse_args()
    prepare(args.database, args.database_url)
    os.environ["EVALHUB_EVENT_STREAMS"] = os.environ["EVALHUB_EVENT_STREAMS_PER_USER"] = str(args.idle_streams + 10)
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.management import call_command

    from evalhub.api_keys.models import ApiKey
    from runs.events.models import RunEvent
    from runs.events.publish import publish
    from tests.base import free_port
    from tests.evalhub.mcp_client.helpers import wait_for_port

    call_command("migrate", verbosity=0)
    user = User.objects.create_user("bench", is_staff=True)
    _, key = ApiKey.issue(user=user, name="bench", scopes=["evaluate:read"])
    port = free_port()
    web = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, web)
        url = f"http://127.0.0.1:{port}/api/v1/events"
        everything = Reader(url, key, query="", until=args.events, drop_after=args.events // 3)
        one_run = Reader(url, key, query="run=7", until=args.events // 10, drop_after=None)
        for reader in (everything, one_run):
            reader.start()
            reader.connected.wait(30)
        written: dict[int, float] = {}
        began = time.monotonic()
        for n in range(args.events):
            # Every tenth event is of run 7, the rest of other runs.
            event = RunEvent(type="run.step", run_id=7 if n % 10 == 0 else 1000 + n, data={"n": n})
            written[n] = time.time()
            publish([event])
            time.sleep(max(began + (n + 1) / args.rate - time.monotonic(), 0))
        for reader in (everything, one_run):
            reader.join(60)
        time.sleep(2)  # the readers' streams close
        idle_alone = idle_cpu(web.pid, args.idle_seconds)
        streams = open_streams(url, key, args.idle_streams)
        idle_streams = idle_cpu(web.pid, args.idle_seconds)
        for stream in streams:
            stream.close()
    finally:
        web.terminate()
        web.wait(30)

    sequence = [n for _, n, _ in everything.received]
    latencies = [(at - written[n]) * 1000 for _, n, at in everything.received]
    lost = sorted(set(range(args.events)) - set(sequence))
    duplicated = len(sequence) - len(set(sequence))
    print(f"== {args.events} events at {args.rate:.0f}/s on {args.database}, read over HTTP from runserver")
    print(
        f"delivery: p50 {percentile(latencies, 50):.0f} ms, p95 {percentile(latencies, 95):.0f} ms, "
        f"max {max(latencies):.0f} ms"
    )
    print(
        f"resume after a dropped connection at event {args.events // 3} ({everything.reconnects} reconnect): "
        f"{len(sequence)} read, {len(lost)} lost, {duplicated} duplicated, in order: {sequence == sorted(sequence)}"
    )
    mine = [n for _, n, _ in one_run.received]
    print(
        f"a client following one run: {len(mine)} events read, all of its run: {all(n % 10 == 0 for n in mine)}, "
        f"in order: {mine == sorted(mine)}"
    )
    print(
        f"idle web process: {idle_alone:.1%} of a core with no stream open, {idle_streams:.1%} with "
        f"{args.idle_streams} open ({idle_streams - idle_alone:+.1%})"
    )
    print(f"headline: delivery p50 = {percentile(latencies, 50):.0f} ms (goal ≤ 50 ms)")
    added = (idle_streams - idle_alone) * 100
    print(f"headline: CPU added by {args.idle_streams} open streams = {added:.1f} % of a core (goal < 5 % for 50)")
    if lost or duplicated:
        raise SystemExit("events were lost or duplicated")


if __name__ == "__main__":
    main()
