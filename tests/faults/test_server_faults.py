"""The fault corpus, MCP server side: each hostile server mode through the real run pipeline.

One row per case: the fault (a mode of tests/faults/hostile_server.py, over stdio unless `http`, or a fixture
server of another test package that already has the misbehaviour) and how the run must end. Every row also proves
that no process of the run outlives it and that the next run on the same pipeline passes; rows marked `worker` run
again on a real Celery worker process. The agent is a scripted OpenAI-compatible endpoint that calls the row's
`tools` (in one turn, each with `args`), then answers "Done.".
"""

from __future__ import annotations

import json
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
from runs.record_limits import TOOL_RESULT_BYTES, compact_json, marker
from tests.base import make_bob, make_demo_server, make_scenario, make_scripted_provider
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
    local_url,
    rows,
)
from tests.faults.hostile_server import GARBAGE, MANY_TOOLS, ODD_NAMES
from tests.runs.fixtures.hostile_values_server import TOOLS as HOSTILE_VALUES_TOOLS
from tests.runs.fixtures.hostile_values_server import flood_text


@dataclass(frozen=True)
class Case:
    id: str
    mode: str
    ends: Outcome
    tools: tuple[str, ...] = ("act",)  # the tools the model calls, in one turn
    args: str = "{}"  # the arguments of each call, as the model writes them
    listed: int = 1  # the (valid) tools the server lists, every one offered to the model
    answers: tuple[str, ...] = ()  # each call's full text when the run is done, "<tool>: done" unless given
    replaced: tuple[dict[str, str], ...] = ()  # the values JSON does not have, flagged on the first call
    stderr_tail: str = ""  # what the run keeps of the server's stderr when it crashed
    fixture: str = ""  # a server of another test package (stdio), instead of hostile_server.py's `mode`
    http: bool = False
    url: str = ""  # the HTTP server's URL as registered ({port}: the session's healthy server), no process of its own
    staff_owner: bool = True  # who registered it: only staff's servers may reach 127.0.0.1
    bearer_token: str = ""
    worker: bool = False
    connect_timeout: float = SLACK
    request_timeout: float = SLACK
    xfail: str = ""  # why this case does not hold today (a known finding); the row is then strictly xfail


BANNER = repr(GARBAGE.decode().strip())
HOSTILE_VALUES = "tests/runs/fixtures/hostile_values_server.py"
MALFORMED_TOOLS = "tests/evalhub/mcp_client/fixtures/malformed_tools_server.py"
HUGE_RESULT = "tests/evalhub/mcp_client/fixtures/huge_result_server.py"
FLOOD_SIZE = 20_000_000
CRASHED = "The server process exited with code 9 during the call to tool 'act'; its stderr output usually says why."
LAST_WORDS = "hostile: dying in the middle of the call"
STAFF_ONLY = (
    "only servers added by staff may reach loopback and private-network addresses (an operator can allow "
    "everyone's with EVALHUB_ALLOW_PRIVATE_URLS=1)."
)
UNLISTED_VARIABLE = "SOME_VAR"

# fmt: off
CASES = [
    Case("hang on initialize", "hang-initialize", connect_timeout=2, ends=failed("server", "connect", "connect_timeout",
         "The server started but did not answer the MCP initialize request within the connect timeout (2 s); "
         "check that the command starts an MCP server speaking stdio.")),
    Case("hang on initialize (HTTP)", "hang-initialize", http=True, connect_timeout=2, ends=failed("server",
         "connect", "connect_timeout", "Got no answer from 127.0.0.1:{port} within the connect timeout (2 s); "
         "check the URL and that the server is running and reachable.")),
    Case("only garbage on stdout", "garbage-only", connect_timeout=2, ends=failed("server", "connect", "invalid_output",
         f"The server wrote non-JSON text to stdout ({BANNER}) and did not complete the MCP handshake within 2 s; "
         "stdio servers must write only JSON-RPC messages to stdout and send logs to stderr.")),
    Case("garbage on stdout around valid answers", "garbage-stdout", ends=completed()),
    Case("hang in a tool call", "hang-in-call", request_timeout=1, ends=failed("server", "agent", "request_timeout",
         "The server did not answer the call to tool 'act' within the request timeout (1 s).", steps=1)),
    Case("hang in a tool call (HTTP)", "hang-in-call", http=True, request_timeout=1, ends=failed("server",
         "agent", "request_timeout",
         "The server did not answer the call to tool 'act' within the request timeout (1 s).", steps=1)),
    Case("exit mid-call, stderr kept", "exit-mid-call", worker=True, stderr_tail=LAST_WORDS,
         ends=failed("server", "agent", "server_crashed", CRASHED, steps=1)),
    Case("exit mid-call, leaving a child that holds its stdout", "exit-leaving-child", stderr_tail=LAST_WORDS,
         ends=failed("server", "agent", "server_crashed", CRASHED, steps=1)),
    Case("exit mid-call: connection dropped (HTTP)", "exit-mid-call", http=True, ends=failed("server",
         "agent", "connection_lost", "The HTTP connection to 127.0.0.1:{port} failed (Server disconnected "
         "without sending a response.); check the URL and the network.", steps=1)),
    Case("notification flood during a call", "notification-flood", ends=completed()),
    Case("a tool that answers every call with an error", "tool-error", answers=("act: the backend failed",),
         ends=completed(cause="server")),
    Case("sampling request during a call", "sampling", ends=failed("server", "agent", "server_error",
         "The server answered the call to tool 'act' with an error: Sampling not supported (JSON-RPC error -32600).",
         steps=1)),
    Case("elicitation request during a call", "elicitation", ends=failed("server", "agent", "server_error",
         "The server answered the call to tool 'act' with an error: Elicitation not supported "
         "(JSON-RPC error -32600).", steps=1)),
    Case("500 tools", "many-tools", tools=("tool_499",), listed=MANY_TOOLS, ends=completed()),
    Case("odd tool names: unicode, slash, dots, space, 300 characters", "odd-names", tools=ODD_NAMES,
         listed=len(ODD_NAMES), ends=completed(results=len(ODD_NAMES))),
    Case("a 20 MB tool result: stored capped", "flood", fixture=HOSTILE_VALUES, tools=("flood",),
         args=json.dumps({"size": FLOOD_SIZE}), listed=len(HOSTILE_VALUES_TOOLS), answers=(flood_text(FLOOD_SIZE),),
         ends=completed()),
    Case("NaN and Infinity in a tool result", "measure", fixture=HOSTILE_VALUES, tools=("measure",),
         listed=len(HOSTILE_VALUES_TOOLS), answers=('{"mean": NaN, "max": Infinity, "min": -Infinity, "count": 3}',),
         replaced=tuple({"path": f"result.structuredContent.{key}", "was": was} for key, was in
                        (("mean", "NaN"), ("max", "Infinity"), ("min", "-Infinity"))), ends=completed()),
    Case("a tool with a non-object inputSchema among valid ones", "malformed-tools", fixture=MALFORMED_TOOLS,
         tools=("get_weather",), args='{"latitude": 1, "longitude": 2}', answers=("get_weather: 18 °C and sunny",),
         ends=completed()),
    Case("a tool result over the 32 MB stdio message limit", "huge-result", fixture=HUGE_RESULT, tools=("export",),
         listed=2, ends=failed("server", "agent", "invalid_output",
         "The server's answer to the call to tool 'export' was larger "
         "than 32 MB, EvalHub's limit for one stdio message, so EvalHub stopped reading it and closed the connection; "
         "make the answer smaller (e.g. paginate) or return a link to the data.", steps=1)),
    Case("a cloud metadata address as the URL", "healthy", http=True, url="http://169.254.169.254/mcp",
         ends=failed("server", "connect", "address_refused",
         "Refused to connect: 169.254.169.254 is a link-local address, "
         "where cloud metadata services answer; EvalHub never connects to link-local, cloud metadata, multicast or "
         "reserved addresses.")),
    Case("a name resolving to loopback, registered by a non-staff user", "healthy", http=True,
         url="http://localhost:{port}/mcp", staff_owner=False, ends=failed("server", "connect", "address_refused",
         f"Refused to connect: localhost resolves to 127.0.0.1, a loopback address (this machine); {STAFF_ONLY}")),
    Case("a ${VAR} reference to a variable not allowed", "healthy", http=True, url="http://127.0.0.1:{port}/mcp",
         bearer_token=f"${{{UNLISTED_VARIABLE}}}", ends=failed("harness", "connect", "secret_unavailable",
         f"${{{UNLISTED_VARIABLE}}} is not an allowed environment variable: an operator must add {UNLISTED_VARIABLE} "
         "to EVALHUB_SECRET_ENV_ALLOWLIST (on the web app and the worker) before a secret may reference it.")),
]
# fmt: on


def scenario_for(case: Case, server: McpServer, scripted: ScriptedServer) -> Scenario:
    calls = [tool_call(f"call_{index}", name, case.args) for index, name in enumerate(case.tools)]
    scripted.script(Answer(body=completion(tool_calls=calls)), Answer(body=completion(content="Done.")))
    provider = make_scripted_provider(scripted.base_url)
    return make_scenario(server, provider=provider, name=f"Fault: {case.id}", expected_tools=list(case.tools))


@contextmanager
def server_for(case: Case, tmp_path: Path, *, owner: User, healthy_port: int) -> Iterator[tuple[McpServer, int]]:
    timeouts = {"connect_timeout": case.connect_timeout, "request_timeout": case.request_timeout}
    if case.fixture:
        yield make_demo_server(name=f"Hostile {case.mode}", args=[case.fixture], **timeouts), 0
    elif not case.http:
        yield hostile_stdio_server(case.mode, tmp_path / "server.pid", **timeouts), 0
    elif case.url:
        owner = owner if case.staff_owner else make_bob()
        url = case.url.format(port=healthy_port)
        server = hostile_http_server(
            case.mode, url, owner=owner, name=case.id, bearer_token=case.bearer_token, **timeouts
        )
        yield server, 0
    else:
        with hostile_http_process(case.mode) as port:
            yield hostile_http_server(case.mode, local_url(port), owner=owner, **timeouts), port


def assert_kept(kept: str, full: str) -> None:
    """`kept` is `full`, or its head and the "…truncated N bytes" marker when `full` is over the cap."""
    head, cut, _ = kept.partition("…truncated ")
    if len(compact_json(full)) <= TOOL_RESULT_BYTES:
        assert kept == full
    else:
        assert cut and full.startswith(head) and kept == head + marker(len(full.encode()) - len(head.encode()))


def check_recorded(run: Run, case: Case, scripted: ScriptedServer) -> None:
    """What the run kept of the fault: the tools offered and asked for and, when they answered, their answers."""
    if case.ends.steps:
        offered = [tool["function"]["name"] for tool in scripted.received[0].json["tools"]]
        assert offered == run.tool_snapshot.tool_names and len(offered) == case.listed  # type: ignore[union-attr]
        args = json.loads(case.args)
        assert run.transcript["steps"][0]["toolCalls"] == [{"toolName": name, "args": args} for name in case.tools]
    if case.ends.status == "done":
        assert run.tool_names == list(case.tools)
        answers = case.answers or tuple(f"{name}: done" for name in case.tools)
        for call, full in zip(run.all_tool_calls, answers, strict=True):
            (block,) = call["result"]["content"]
            assert_kept(block["text"], full)
            assert len(compact_json(call["result"])) <= TOOL_RESULT_BYTES
            assert ("truncated" in call) is (block["text"] != full)
        assert run.all_tool_calls[0].get("replacedValues", []) == list(case.replaced)
        assert run.final_text == "Done."
    if case.stderr_tail:
        assert run.error is not None and run.error["stderr_tail"] == case.stderr_tail


@pytest.mark.django_db(transaction=True)
class ServerFaultTests:
    @pytest.mark.parametrize("case", rows(CASES))
    def test_the_run_ends_as_the_table_says(
        self,
        case: Case,
        alice: User,
        scripted: ScriptedServer,
        healthy_port: int,
        tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        # Set on this host: a reference to it is refused for not being allowed, not for being missing.
        monkeypatch.setenv(UNLISTED_VARIABLE, "some-var-value-77d2")
        with server_for(case, tmp_path, owner=alice, healthy_port=healthy_port) as (server, port):
            scenario = scenario_for(case, server, scripted)
            watch = ProcessWatch(tmp_path / "server.pid", root=os.getpid())

            run = execute_here(scenario, alice)

            assert_outcome(run, case.ends, port=str(port))
            check_recorded(run, case, scripted)
            watch.assert_none_left()
        assert_next_run_succeeds(
            lambda next_scenario: execute_here(next_scenario, alice), scripted, healthy_port, owner=alice
        )


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
        with server_for(case, tmp_path, owner=alice, healthy_port=healthy_port) as (server, port):
            scenario = scenario_for(case, server, scripted)
            watch = ProcessWatch(tmp_path / "server.pid", root=worker.pid)

            run = execute_on_worker(scenario, alice)

            assert_outcome(run, case.ends, port=str(port))
            check_recorded(run, case, scripted)
            assert run.worker.startswith("evalhub-test-")
            watch.assert_none_left()
        assert_next_run_succeeds(
            lambda next_scenario: execute_on_worker(next_scenario, alice), scripted, healthy_port, owner=alice
        )
