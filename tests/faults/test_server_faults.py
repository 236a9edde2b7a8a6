"""The fault corpus, MCP server side: each hostile server mode through the real run pipeline.

One row per case: the fault (a mode of tests/faults/hostile_server.py, over stdio unless `http`) and how the
run must end. Every row also proves that no process of the run outlives it and that the next run on the same
pipeline passes; rows marked `worker` run again on a real Celery worker process. The agent is a scripted
OpenAI-compatible endpoint that calls the row's `tools` (in one turn), then answers "Done.".
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from runs.models import Run
from tests.base import make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call
from tests.faults.harness import (
    SLACK,
    Outcome,
    ProcessWatch,
    assert_next_run_succeeds,
    assert_outcome,
    completed,
    execute_here,
    execute_on_worker,
    failed,
    hostile_http_process,
    hostile_http_server,
    hostile_stdio_server,
    rows,
)
from tests.faults.hostile_server import GARBAGE, MANY_TOOLS, ODD_NAMES


@dataclass(frozen=True)
class Case:
    id: str
    mode: str
    ends: Outcome
    tools: tuple[str, ...] = ("act",)  # the tools the model calls, in one turn
    listed: int = 1  # the tools the server lists, every one offered to the model
    http: bool = False
    worker: bool = False
    connect_timeout: float = SLACK
    request_timeout: float = SLACK
    xfail: str = ""  # why this case does not hold today (a known finding); the row is then strictly xfail


BANNER = repr(GARBAGE.decode().strip())

# fmt: off
CASES = [
    Case("hang on initialize", "hang-initialize", connect_timeout=2, ends=failed("connect", "connect_timeout",
         "The server started but did not answer the MCP initialize request within the connect timeout (2 s); "
         "check that the command starts an MCP server speaking stdio.")),
    Case("hang on initialize (HTTP)", "hang-initialize", http=True, connect_timeout=2, ends=failed(
         "connect", "connect_timeout", "Got no answer from 127.0.0.1:{port} within the connect timeout (2 s); "
         "check the URL and that the server is running and reachable.")),
    Case("only garbage on stdout", "garbage-only", connect_timeout=2, ends=failed("connect", "invalid_output",
         f"The server wrote non-JSON text to stdout ({BANNER}) and did not complete the MCP handshake within 2 s; "
         "stdio servers must write only JSON-RPC messages to stdout and send logs to stderr.")),
    Case("garbage on stdout around valid answers", "garbage-stdout", ends=completed()),
    Case("hang in a tool call", "hang-in-call", request_timeout=1, ends=failed("agent", "request_timeout",
         "The server did not answer the call to tool 'act' within the request timeout (1 s).", steps=1)),
    Case("hang in a tool call (HTTP)", "hang-in-call", http=True, request_timeout=1, ends=failed(
         "agent", "request_timeout",
         "The server did not answer the call to tool 'act' within the request timeout (1 s).", steps=1)),
    Case("exit mid-call", "exit-mid-call", worker=True, ends=failed("agent", "server_crashed",
         "The server process exited with code 9 during the call to tool 'act'; its stderr output usually says why.",
         steps=1)),
    Case("exit mid-call, leaving a child that holds its stdout", "exit-leaving-child", request_timeout=2,
         xfail="the crash goes unnoticed while the child keeps the pipe open: the run waits for the request timeout "
         "and reports request_timeout, not server_crashed", ends=failed("agent", "server_crashed",
         "The server process exited with code 9 during the call to tool 'act'; its stderr output usually says why.",
         steps=1)),
    Case("exit mid-call: connection dropped (HTTP)", "exit-mid-call", http=True, ends=failed(
         "agent", "connection_lost", "The HTTP connection to 127.0.0.1:{port} failed (Server disconnected "
         "without sending a response.); check the URL and the network.", steps=1)),
    Case("notification flood during a call", "notification-flood", ends=completed()),
    Case("sampling request during a call", "sampling", ends=failed("agent", "server_error",
         "The server answered the call to tool 'act' with an error: Sampling not supported (JSON-RPC error -32600).",
         steps=1)),
    Case("elicitation request during a call", "elicitation", ends=failed("agent", "server_error",
         "The server answered the call to tool 'act' with an error: Elicitation not supported "
         "(JSON-RPC error -32600).", steps=1)),
    Case("500 tools", "many-tools", tools=("tool_499",), listed=MANY_TOOLS, ends=completed()),
    Case("odd tool names: unicode, slash, dots, space, 300 characters", "odd-names", tools=ODD_NAMES,
         listed=len(ODD_NAMES), ends=completed(results=len(ODD_NAMES))),
]
# fmt: on


def scenario_for(case: Case, server: McpServer, scripted: ScriptedServer) -> Scenario:
    calls = [tool_call(f"call_{index}", name, "{}") for index, name in enumerate(case.tools)]
    scripted.script(Answer(body=completion(tool_calls=calls)), Answer(body=completion(content="Done.")))
    provider = make_scripted_provider(scripted.base_url)
    return make_scenario(server, provider=provider, name=f"Fault: {case.id}", expected_tools=list(case.tools))


@contextmanager
def server_for(case: Case, tmp_path: Path) -> Iterator[tuple[McpServer, int]]:
    timeouts = {"connect_timeout": case.connect_timeout, "request_timeout": case.request_timeout}
    if not case.http:
        yield hostile_stdio_server(case.mode, tmp_path / "server.pid", **timeouts), 0
        return
    with hostile_http_process(case.mode) as port:
        yield hostile_http_server(case.mode, port, **timeouts), port


def check_recorded(run: Run, case: Case, scripted: ScriptedServer) -> None:
    """What the run kept of the fault: the tools offered and asked for and, when they answered, their answers."""
    if case.ends.steps:
        offered = [tool["function"]["name"] for tool in scripted.received[0].json["tools"]]
        assert offered == run.tool_snapshot.tool_names and len(offered) == case.listed  # type: ignore[union-attr]
        assert run.transcript["steps"][0]["toolCalls"] == [{"toolName": name, "args": {}} for name in case.tools]
    if case.ends.status == "done":
        assert run.tool_names == list(case.tools)
        texts = [call["result"]["content"] for call in run.all_tool_calls]
        assert texts == [[{"type": "text", "text": f"{name}: done"}] for name in case.tools]
        assert run.final_text == "Done."


@pytest.mark.django_db(transaction=True)
class ServerFaultTests:
    @pytest.mark.parametrize("case", rows(CASES))
    def test_the_run_ends_as_the_table_says(
        self, case: Case, alice: User, scripted: ScriptedServer, healthy_port: int, tmp_path: Path
    ) -> None:
        with server_for(case, tmp_path) as (server, port):
            scenario = scenario_for(case, server, scripted)
            watch = ProcessWatch(tmp_path / "server.pid", root=os.getpid())

            run = execute_here(scenario, alice)

            assert_outcome(run, case.ends, port=str(port))
            check_recorded(run, case, scripted)
            watch.assert_none_left()
        assert_next_run_succeeds(lambda next_scenario: execute_here(next_scenario, alice), scripted, healthy_port)


WORKER_CASES = [case for case in CASES if case.worker]


@pytest.mark.worker
class ServerFaultOnWorkerTests:
    @pytest.mark.parametrize("case", rows(WORKER_CASES))
    def test_a_real_worker_ends_the_run_as_the_table_says_and_runs_the_next(
        self,
        case: Case,
        worker: subprocess.Popen[bytes],
        alice: User,
        scripted: ScriptedServer,
        healthy_port: int,
        tmp_path: Path,
    ) -> None:
        with server_for(case, tmp_path) as (server, port):
            scenario = scenario_for(case, server, scripted)
            watch = ProcessWatch(tmp_path / "server.pid", root=worker.pid)

            run = execute_on_worker(scenario, alice)

            assert_outcome(run, case.ends, port=str(port))
            check_recorded(run, case, scripted)
            assert run.worker.startswith("evalhub-test-")
            watch.assert_none_left()
        assert_next_run_succeeds(lambda next_scenario: execute_on_worker(next_scenario, alice), scripted, healthy_port)
