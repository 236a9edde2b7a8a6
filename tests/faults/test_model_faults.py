"""The fault corpus, model side: each hostile endpoint mode through the real run pipeline and the openai SDK.

One row per case: the fault (a mode of tests/faults/hostile_model.py, served by the scripted endpoint) and how
the run must end, including how many chat requests the endpoint got (retries included) and, when a tool was
called, the text of its result as recorded and as sent back to the model. Every row also proves that the run's
MCP server (tests/faults/hostile_server.py, well-behaved, over stdio) and its helper process do not outlive the
run, and that the next run on the same pipeline passes; rows marked `worker` run again on a real Celery worker.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from evalhub.scenarios.models import Scenario
from runs.models import Run
from tests.base import make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import ScriptedServer
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
    hostile_stdio_server,
    rows,
)
from tests.faults.hostile_model import ATTEMPTS, CONTEXT_TOO_LONG, RETRY_AFTER_SECONDS


@dataclass(frozen=True)
class Case:
    id: str
    mode: str
    ends: Outcome
    requests: int  # chat requests the endpoint received, retries included
    tool_result: str = ""  # the first tool result's text, as recorded and as the model was sent it
    retry_wait: float = 0.0  # the second request came at least this long after the first (Retry-After)
    provider_timeout: float = 10.0
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
    Case("repeated 500s", "server-errors", requests=ATTEMPTS, ends=failed("model call 1", "server_error",
         f"the provider had a server error (HTTP 500) — gave up after {ATTEMPTS} attempts in {{seconds}} s")),
    Case("hang beyond the provider timeout", "hang", requests=1, provider_timeout=1.0, worker=True,
         ends=failed("model call 1", "timeout", "no answer from {base} within 1 s (the per-call timeout)")),
    Case("malformed JSON", "malformed-json", requests=1, ends=failed("model call 1", "bad_url", NOT_OPENAI)),
    Case("an HTML page", "html-page", requests=1, ends=failed("model call 1", "bad_url", NOT_OPENAI)),
    Case("a call to an unknown tool", "unknown-tool", requests=2, tool_result="Unknown tool 'delete_everything'.",
         ends=completed(passed=False)),
    Case("non-JSON tool arguments", "non-json-arguments", requests=2, tool_result=BAD_ARGUMENTS,
         ends=completed()),
    Case("context too long", "context-too-long", requests=2, tool_result="act: done", ends=failed(
         "model call 2", "context_too_long", f"the conversation is too long for model 'gpt-4o': {CONTEXT_TOO_LONG}",
         steps=1, results=1)),
    Case("failure on the second call", "fails-on-second-call", requests=2, tool_result="act: done",
         ends=failed("model call 2", "auth", "the provider rejected the API key (401)", steps=1, results=1)),
]
# fmt: on


def scenario_for(case: Case, scripted: ScriptedServer, tmp_path: Path) -> Scenario:
    hostile_model.script(scripted, case.mode)
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


@pytest.mark.django_db(transaction=True)
class ModelFaultTests:
    @pytest.mark.parametrize("case", rows(CASES))
    def test_the_run_ends_as_the_table_says(
        self, case: Case, alice: User, scripted: ScriptedServer, healthy_port: int, tmp_path: Path
    ) -> None:
        scenario = scenario_for(case, scripted, tmp_path)
        watch = ProcessWatch(tmp_path / "server.pid", root=os.getpid())

        run = execute_here(scenario, alice)

        assert_outcome(run, case.ends, base=scripted.base_url)
        check_recorded(run, case, scripted)
        watch.assert_none_left()
        assert_next_run_succeeds(lambda next_scenario: execute_here(next_scenario, alice), scripted, healthy_port)


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
        scenario = scenario_for(case, scripted, tmp_path)
        watch = ProcessWatch(tmp_path / "server.pid", root=worker.pid)

        run = execute_on_worker(scenario, alice)

        assert_outcome(run, case.ends, base=scripted.base_url)
        check_recorded(run, case, scripted)
        assert run.worker.startswith("evalhub-test-")
        watch.assert_none_left()
        assert_next_run_succeeds(lambda next_scenario: execute_on_worker(next_scenario, alice), scripted, healthy_port)
