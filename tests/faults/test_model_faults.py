"""The fault corpus, model side: each hostile endpoint mode through the real run pipeline and the openai SDK.

One row per case: the fault (a mode of tests/faults/hostile_model.py, served by the scripted endpoint) and how
the run must end, including how many chat requests the endpoint got (retries included) and, when a tool was
called, the text of its result as recorded and as sent back to the model. Every row also proves that the run's
MCP server (tests/faults/hostile_server.py, well-behaved, over stdio) and its helper process do not outlive the
run, and that the next run on the same pipeline passes; rows marked `worker` run again on a real Celery worker.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from evalhub.mcp_client.redact import MASK
from evalhub.scenarios.models import Scenario
from runs.models import Run
from tests.base import make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import API_KEY, ScriptedServer
from tests.faults import hostile_model
from tests.faults.harness import (
    Outcome,
    ProcessWatch,
    assert_next_run_succeeds,
    assert_outcome,
    completed,
    execute_here,
    execute_on_worker,
    failed,
    hostile_http_server,
    hostile_stdio_server,
    local_url,
    rows,
)
from tests.faults.hostile_model import (
    ATTEMPTS,
    CONTEXT_TOO_LONG,
    LONG_RETRY_AFTER_SECONDS,
    RETRY_AFTER_SECONDS,
    SERVER_TOKEN,
)


@dataclass(frozen=True)
class Case:
    id: str
    mode: str
    ends: Outcome
    requests: int  # chat requests the endpoint received, retries included
    tool_result: str = ""  # the first tool result's text, as recorded and as the model was sent it
    retry_wait: float = 0.0  # the second request came at least this long after the first (Retry-After)
    provider_timeout: float = 10.0
    # The MCP server's bearer token: the agent then uses the session's healthy HTTP server, holding this secret.
    server_token: str = ""
    tool_call: dict[str, Any] | None = None  # the first tool call, as the transcript keeps it
    final_text: str = "Done."  # when the run is done
    worker: bool = False
    xfail: str = ""  # why this case does not hold today (a known finding); the row is then strictly xfail


NOT_OPENAI = "{base} did not answer like an OpenAI-compatible API — check the base URL, it usually ends in /v1"
BAD_ARGUMENTS = (
    "Invalid arguments: not a JSON object (invalid JSON (Expecting property name enclosed in double quotes at "
    "character 1))."
)

# fmt: off
CASES = [
    Case("429 with Retry-After, then success", "rate-limited-then-ok", requests=3, tool_result="act: done",
         retry_wait=RETRY_AFTER_SECONDS, ends=completed()),
    Case("repeated 500s", "server-errors", requests=ATTEMPTS, ends=failed("provider", "model call 1", "server_error",
         f"the provider had a server error (HTTP 500) — gave up after {ATTEMPTS} attempts in {{seconds}} s")),
    Case("hang beyond the provider timeout", "hang", requests=1, provider_timeout=1.0, worker=True,
         ends=failed("provider", "model call 1", "timeout", "no answer from {base} within 1 s (the per-call timeout)")),
    Case("malformed JSON", "malformed-json", requests=1,
         ends=failed("provider", "model call 1", "bad_url", NOT_OPENAI)),
    Case("an HTML page", "html-page", requests=1, ends=failed("provider", "model call 1", "bad_url", NOT_OPENAI)),
    Case("a call to an unknown tool", "unknown-tool", requests=2, tool_result="Unknown tool 'delete_everything'.",
         ends=completed(cause="agent")),
    Case("non-JSON tool arguments", "non-json-arguments", requests=2, tool_result=BAD_ARGUMENTS,
         ends=completed(cause="agent")),
    Case("context too long", "context-too-long", requests=2, tool_result="act: done", ends=failed("provider",
         "model call 2", "context_too_long", f"the conversation is too long for model 'gpt-4o': {CONTEXT_TOO_LONG}",
         steps=1, results=1)),
    Case("failure on the second call", "fails-on-second-call", requests=2, tool_result="act: done",
         ends=failed("provider", "model call 2", "auth", "the provider rejected the API key (401)", steps=1,
                     results=1)),
    Case("429 with a Retry-After longer than the call may take", "rate-limited-long-wait", requests=1,
         ends=failed("provider",
         "model call 1", "rate_limited", "the provider kept rate-limiting the requests (429) — gave up after 1 attempt "
         f"in {{seconds}} s: it asked to wait {LONG_RETRY_AFTER_SECONDS} s (about 60 min) before trying again "
         "(Retry-After), longer than the {seconds} s left of the 180 s retry budget")),
    Case("an answer dripping past the total deadline", "drip", requests=1, provider_timeout=1.0, ends=failed("provider",
         "model call 1", "timeout",
         "{base} started answering but had not finished within 1 s (the per-call timeout) ({count} bytes received)")),
    Case("NaN and Infinity in tool-call arguments", "nan-arguments", requests=2, tool_result="act: done",
         tool_call={"toolName": "act", "args": {"threshold": "NaN", "limits": [1, "Infinity"]}, "replacedValues": [
             {"path": "args.threshold", "was": "NaN"}, {"path": "args.limits[1]", "was": "Infinity"}]},
         ends=completed()),
    Case("echoes the provider's API key and the server's bearer token", "echo-secrets", requests=2,
         tool_result="act: done", server_token=SERVER_TOKEN,
         tool_call={"toolName": "act", "args": {"text": f"key {MASK} token {MASK}"}},
         final_text=f"Your key is {MASK} and the token is {MASK}.", ends=completed()),
]
# fmt: on


def scenario_for(case: Case, scripted: ScriptedServer, tmp_path: Path, *, owner: User, healthy_port: int) -> Scenario:
    hostile_model.script(scripted, case.mode)
    if case.server_token:
        url = local_url(healthy_port)
        server = hostile_http_server("healthy", url, owner=owner, name=case.id, bearer_token=case.server_token)
    else:
        server = hostile_stdio_server("healthy", tmp_path / "server.pid")
    provider = make_scripted_provider(scripted.base_url, timeout=case.provider_timeout)
    return make_scenario(server, provider=provider, name=f"Fault: {case.id}", expected_tools=["act"])


def check_recorded(run: Run, case: Case, scripted: ScriptedServer) -> None:
    """What the endpoint was asked, and what the run kept of the tool call and sent back to the model."""
    assert len(scripted.received) == case.requests
    if case.retry_wait:
        assert scripted.received[1].at - scripted.received[0].at >= case.retry_wait
    if case.ends.status == "done":
        # Every request is accounted for in the run's model calls, retries included.
        assert sum(call["attempts"] for call in run.model_calls) == case.requests
    if case.tool_result:
        call = run.all_tool_calls[0]
        assert call["result"]["content"] == [{"type": "text", "text": case.tool_result}]
        assert call["isError"] is (case.tool_result != "act: done")
        told = scripted.received[-1].json["messages"][-1]
        assert (told["role"], told["content"]) == ("tool", case.tool_result)
    if case.tool_call:
        assert run.transcript["steps"][0]["toolCalls"] == [case.tool_call]
        call = run.all_tool_calls[0]
        assert (call["args"], call.get("replacedValues")) == (
            case.tool_call["args"],
            case.tool_call.get("replacedValues"),
        )
    if case.ends.status == "done":
        assert run.final_text == run.transcript["finalText"] == case.final_text
    # Whatever the provider or the model did, no secret is in the record (issue 18, finding 10).
    record = json.dumps([run.transcript, run.all_tool_calls, run.final_text, run.model_calls, run.error])
    assert API_KEY not in record and SERVER_TOKEN not in record


@pytest.mark.django_db(transaction=True)
class ModelFaultTests:
    @pytest.mark.parametrize("case", rows(CASES))
    def test_the_run_ends_as_the_table_says(
        self, case: Case, alice: User, scripted: ScriptedServer, healthy_port: int, tmp_path: Path
    ) -> None:
        scenario = scenario_for(case, scripted, tmp_path, owner=alice, healthy_port=healthy_port)
        watch = ProcessWatch(tmp_path / "server.pid", root=os.getpid())

        run = execute_here(scenario, alice)

        assert_outcome(run, case.ends, base=scripted.base_url)
        check_recorded(run, case, scripted)
        watch.assert_none_left()
        assert_next_run_succeeds(
            lambda next_scenario: execute_here(next_scenario, alice), scripted, healthy_port, owner=alice
        )


WORKER_CASES = [case for case in CASES if case.worker]


@pytest.mark.worker
class ModelFaultOnWorkerTests:
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
        scenario = scenario_for(case, scripted, tmp_path, owner=alice, healthy_port=healthy_port)
        watch = ProcessWatch(tmp_path / "server.pid", root=worker.pid)

        run = execute_on_worker(scenario, alice)

        assert_outcome(run, case.ends, base=scripted.base_url)
        check_recorded(run, case, scripted)
        assert run.worker.startswith("evalhub-test-")
        watch.assert_none_left()
        assert_next_run_succeeds(
            lambda next_scenario: execute_on_worker(next_scenario, alice), scripted, healthy_port, owner=alice
        )
