"""How well the offline model does on its prompt table, and how fast one call is through the openai SDK.

    .venv/bin/python bench/offline_accuracy.py [--latency-calls 200]

Reads tests/evalhub/model_client/fixtures/offline_prompts.json; prints correct tools, correct arguments, correct
refusals, multi-step runs and known limitations (counts and percentages), then the median latency of one
offline chat call. Headline, as issue 4 asks: the share of the prompt table answered right (correct tool, correct
arguments, correct refusals), single-turn and multi-step rows together; the known limitations are counted apart.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evalhub.model_client import OFFLINE_MODEL, ProviderClient, offline_config
from tests.evalhub.model_client.offline_table import Outcome, evaluate, load_table, load_toolsets

LATENCY_CALLS = 200


def share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.0%})" if whole else "0/0"


def count(outcomes: list[Outcome], attribute: str) -> int:
    return sum(bool(getattr(o, attribute)) for o in outcomes)


def median_latency_ms(calls: int) -> float:
    tools = load_toolsets()["all"]
    messages = [{"role": "user", "content": "Book a flight from Paris to Rome on 2025-06-01 for 2 passengers"}]
    timings = []
    with ProviderClient(offline_config()) as client:
        client.chat(messages=messages, model=OFFLINE_MODEL, tools=tools)  # warm up imports and the client
        for _ in range(calls):
            started = time.perf_counter()
            client.chat(messages=messages, model=OFFLINE_MODEL, tools=tools)
            timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-calls", type=int, default=LATENCY_CALLS)
    args = parser.parse_args()
    table = load_table()
    rows = evaluate(table["rows"])
    multi = evaluate(table["multi_step"])
    limits = evaluate(table["known_limitations"])
    calls = rows.of_kind("call")
    refusals = rows.of_kind("refusal", "no_tool")

    print(f"offline model accuracy on {len(rows.outcomes)} single-turn prompts + {len(multi.outcomes)} multi-step")
    print(f"  correct tool:        {share(count(calls, 'tool_ok'), len(calls))}")
    print(f"  correct arguments:   {share(count(calls, 'arguments_ok'), len(calls))}")
    print(f"  correct refusals:    {share(count(refusals, 'ok'), len(refusals))}  (no call; missing fields named)")
    print(f"  multi-step runs:     {share(count(multi.outcomes, 'ok'), len(multi.outcomes))}")
    table_outcomes = rows.outcomes + multi.outcomes
    print(f"  whole table:         {share(count(table_outcomes, 'ok'), len(table_outcomes))}")
    print(f"  known limitations:   {share(count(limits.outcomes, 'ok'), len(limits.outcomes))} handled")
    every = rows.outcomes + multi.outcomes + limits.outcomes
    print(f"  table + limitations: {share(count(every, 'ok'), len(every))}")
    for outcome in rows.failures + multi.failures:
        print(f"    FAILED {outcome.id}: {outcome.got}")
    for row, outcome in zip(table["known_limitations"], limits.outcomes, strict=True):
        print(f"    limitation {row['id']}: {row['why']}")
        print(f"      got {outcome.got}")
    latency = median_latency_ms(args.latency_calls)
    print(f"median latency of one offline chat call through the openai SDK: {latency:.2f} ms")
    right = count(table_outcomes, "ok")
    print(f"headline: offline model accuracy on the prompt table = {right / len(table_outcomes):.1%}")


if __name__ == "__main__":
    main()
