"""How long one code scoring takes: the product's get_weather example scorer on a 50-step transcript.

    .venv/bin/python bench/scorer_latency.py [--runs 300] [--node-runs 50]

Every scoring creates a fresh V8 context (that is included). Three ways are timed:
- sandbox host: `run_scorer`, the production path (a V8 context in the long-lived sandbox host process, the
  record sent over a pipe as JSON);
- in process: `run_scorer_in_process`, the same engine without the pipe;
- node: a fresh `node` process per scoring (what running scorers in Node would cost without a worker pool).
The host's start-up (once per host) is excluded by a warm-up scoring. p50/p99 use the nearest-rank method.
Headline, as issue 6 defines it: the production path's latency including fresh-context creation, median and p99,
with the `node` subprocess beside it.
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from scorers.contract import EXAMPLE_SCORER, sample_input, scorer_input  # noqa: E402
from scorers.sandbox import run_scorer, run_scorer_in_process  # noqa: E402

NODE_RUNNER = """
const fs = require("fs");
const [code, input] = [fs.readFileSync(process.argv[2], "utf8"), fs.readFileSync(0, "utf8")];
const scorer = (0, eval)(code);
Promise.resolve(scorer(JSON.parse(input))).then((score) => process.stdout.write(JSON.stringify(score)));
"""


def transcript_record(steps: int = 50) -> dict[str, Any]:
    """A run that called get_weather (and a lookup tool) over `steps` steps, with MCP results."""
    calls = []
    for index in range(steps):
        name = "get_weather" if index % 2 else "lookup_city"
        result = {
            "content": [{"type": "text", "text": json.dumps({"temperature": 20 + index / 10, "condition": "Sunny"})}],
            "structuredContent": {"temperature": 20 + index / 10, "condition": "Sunny", "humidity": 40 + index},
            "isError": False,
        }
        calls.append(
            {
                "toolName": name,
                "args": {"latitude": 48.85 + index / 100, "longitude": 2.35, "city": f"City {index}"},
                "result": result,
                "timestamp": 1754000000000 + index * 1000,
                "durationMs": 40 + index,
                "isError": False,
                "nestedCalls": [],
            }
        )
    step_list = [
        {
            "text": f"Step {index}: checking the weather.",
            "finishReason": "tool_calls",
            "toolCalls": [{"toolName": call["toolName"], "args": call["args"]}],
            "toolResults": [{"toolName": call["toolName"], "result": call["result"]}],
        }
        for index, call in enumerate(calls)
    ]
    final = "It is sunny everywhere."
    return scorer_input(
        prompt="What's the weather in these 50 places?",
        expected=None,
        final_text=final,
        transcript={"prompt": "What's the weather in these 50 places?", "steps": step_list, "finalText": final},
        tool_calls=calls,
        all_tool_calls=calls,
        run=sample_input()["run"],
    )


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[max(math.ceil(fraction * len(ordered)) - 1, 0)]


def timed(runs: int, scoring: Callable[[], float | None]) -> list[float]:
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        score = scoring()
        samples.append((time.perf_counter() - started) * 1000)
        assert score == 1.0, score
    return samples


def report(name: str, samples: list[float]) -> None:
    print(
        f"{name:<14} runs={len(samples):<4} p50={statistics.median(samples):7.2f} ms  "
        f"p99={percentile(samples, 0.99):7.2f} ms  max={max(samples):7.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--node-runs", type=int, default=50)
    args = parser.parse_args()

    record = transcript_record()
    size = len(json.dumps(record).encode())
    print(f"Scorer: the product's get_weather example. Record: 50 steps, {size / 1024:.0f} KB of JSON.")

    run_scorer(EXAMPLE_SCORER, record)  # start the sandbox host
    host = timed(args.runs, lambda: run_scorer(EXAMPLE_SCORER, record).score)
    report("sandbox host", host)
    print(f"headline: code scorer latency (sandbox host), median = {statistics.median(host):.2f} ms")
    print(f"headline: code scorer latency (sandbox host), p99 = {percentile(host, 0.99):.2f} ms")
    run_scorer_in_process(EXAMPLE_SCORER, record)  # initialise V8 in this process
    report("in process", timed(args.runs, lambda: run_scorer_in_process(EXAMPLE_SCORER, record).score))

    node = shutil.which("node") or "/usr/bin/node"
    if not Path(node).exists():
        print("node: not found, skipped")
        return
    with tempfile.TemporaryDirectory() as directory:
        runner, code = Path(directory) / "runner.js", Path(directory) / "scorer.js"
        runner.write_text(NODE_RUNNER)
        code.write_text(EXAMPLE_SCORER)
        payload = json.dumps(record).encode()

        def in_node() -> float:
            done = subprocess.run(
                [node, str(runner), str(code)], input=payload, capture_output=True, check=True, timeout=30
            )
            return float(json.loads(done.stdout))

        version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout.strip()
        report(f"node {version}", timed(args.node_runs, in_node))


if __name__ == "__main__":
    main()
