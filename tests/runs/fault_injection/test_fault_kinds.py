"""Every fault kind, injected into a real run against the real demo server over stdio and over HTTP, with a scripted
model: what the agent was given, how long the faulted call took (bounds, measured by the run itself), and that
the verdict does not blame the server for a fault EvalHub injected."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.base import make_alice
from tests.evalhub.model_client.scripted_server import ScriptedServer
from tests.runs.fault_injection.helpers import answer, call, demo_server, run_with_faults, text_of

# A loaded shared machine: a call's overhead (process, HTTP, database) stays under this.
OVERHEAD_MS = 1500


@dataclass(frozen=True)
class Case:
    id: str
    fault: dict[str, Any]
    calls: int  # how many times the model calls the tool
    # Per call: (injected effect or None for the real answer, isError, least ms, the text it contains).
    expected: list[tuple[str | None, bool, int, str]]
    tool: str = "get_weather"
    arguments: str = json.dumps({"latitude": 48.85, "longitude": 2.35})
    request_timeout: float = 30.0
    scenario: dict[str, Any] = field(default_factory=dict)


CASES = [
    Case(
        "hang",
        {"kind": "hang", "tool": "get_weather", "on_call": 1},
        2,
        [("hang", True, 1000, "within the request timeout (1 s)"), (None, False, 0, "Paris")],
        request_timeout=1,
    ),
    Case("slow", {"kind": "slow", "tool": "get_weather", "delay_ms": 700}, 1, [("slow", False, 700, "Paris")]),
    Case(
        "slow past the timeout is a hang",
        {"kind": "slow", "delay_ms": 5000},
        1,
        [("hang", True, 1000, "within the request timeout (1 s)")],
        request_timeout=1,
    ),
    Case(
        "error result",
        {"kind": "error", "message": "Upstream weather service unavailable"},
        1,
        [("error", True, 0, "Upstream weather service unavailable")],
    ),
    Case(
        "JSON-RPC error",
        {"kind": "error", "as": "jsonrpc", "code": -32001, "message": "Backend down"},
        1,
        [("error", True, 0, "MCP error -32001: Backend down")],
    ),
    Case(
        "wedged: every later call hangs",
        {"kind": "wedged", "on_call": 2},
        3,
        [(None, False, 0, "Paris"), ("hang", True, 1000, "request timeout"), ("hang", True, 1000, "request timeout")],
        request_timeout=1,
    ),
    # The real call runs (the demo's `wait` takes 0.6 s), its answer is thrown away.
    Case(
        "drop",
        {"kind": "drop", "tool": "wait"},
        1,
        [("drop", True, 600, "connection to the server was closed")],
        tool="wait",
        arguments=json.dumps({"seconds": 0.6}),
        scenario={"expected_tools": ["wait"]},
    ),
    Case(
        "recover_after 2",
        {"kind": "recover_after", "failures": 2, "fail_as": "error", "message": "Try later"},
        3,
        [("error", True, 0, "Try later"), ("error", True, 0, "Try later"), (None, False, 0, "Paris")],
    ),
]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_fault_kind(case: Case, transport: str, scripted: ScriptedServer, demo_http_port: int) -> None:
    alice = make_alice()
    server = demo_server(transport, owner=alice, request_timeout=case.request_timeout, port=demo_http_port)
    answers = [call(case.tool, case.arguments, call_id=f"call_{n}") for n in range(case.calls)]
    run = run_with_faults(
        scripted,
        server,
        alice,
        {"faults": [{"name": case.id, **case.fault}]},
        *answers,
        answer("Done."),
        **case.scenario,
    )

    assert (run.status, run.stop_reason) == ("done", "completed"), run.error
    records = run.all_tool_calls
    assert len(records) == len(case.expected)
    for record, (effect, is_error, least_ms, text) in zip(records, case.expected, strict=True):
        injected = record.get("injectedFault")
        assert (injected or {}).get("effect") == effect, record
        assert record["isError"] is is_error
        assert text in text_of(record)
        assert least_ms <= record["durationMs"] <= least_ms + OVERHEAD_MS, record["durationMs"]
        assert "_meta" not in record["result"]  # EvalHub's marker moved onto the record
    # An injected fault blames nobody: with every expected tool called, the default scorer passes.
    assert (run.verdict, run.failure_cause) == ("pass", ""), run.failure_reason
