"""How long a full inspection of the demo server takes, over stdio and over Streamable HTTP.

    .venv/bin/python bench/inspect_demo.py [--runs 10]

stdio runs include starting the server process each time (that is what a user's "Inspect" click costs);
HTTP runs reuse one server started up front. p95 uses the nearest-rank method, so with 10 runs it is the
slowest run. Headline, as issue 3 asks: the median inspection time over stdio and over HTTP.
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from evalhub.mcp_client import ServerConfig, inspect_server  # noqa: E402
from tests.evalhub.mcp_client.helpers import free_port, wait_for_port  # noqa: E402


def measure(config: ServerConfig, runs: int) -> list[float]:
    timings: list[float] = []
    expected_hash: str | None = None
    for _ in range(runs):
        started = time.perf_counter()
        inspection = inspect_server(config)
        timings.append((time.perf_counter() - started) * 1000)
        expected_hash = expected_hash or inspection.tools_hash
        assert inspection.tools_hash == expected_hash, "the demo server must be deterministic"
    return timings


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[math.ceil(0.95 * len(ordered)) - 1]


def report(label: str, timings: list[float]) -> None:
    print(f"{label:<6} n={len(timings):<3} median {statistics.median(timings):7.1f} ms   p95 {p95(timings):7.1f} ms")
    print(f"headline: inspection of the demo server over {label}, median = {statistics.median(timings):.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    runs = parser.parse_args().runs

    stdio = ServerConfig(transport="stdio", command=sys.executable, args=["-m", "evalhub.demo_server"], cwd=str(ROOT))
    report("stdio", measure(stdio, runs))

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "evalhub.demo_server", "--http", "--port", str(port)],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, server)
        http = ServerConfig(transport="http", url=f"http://127.0.0.1:{port}/mcp")
        report("http", measure(http, runs))
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
