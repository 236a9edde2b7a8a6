"""What every row of the fault corpus checks, and how its hostile servers are registered and started.

A row names a fault and the outcome it must have (`Outcome`); `assert_outcome` checks a finished run against
it, `ProcessWatch` proves that no process the run started outlives it, and `assert_next_run_succeeds` that the
pipeline or worker that met the fault still runs the next run to a pass.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User

from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from runs import pipeline
from runs.models import Run
from runs.services import run_start
from tests.base import PYTHON, make_demo_server, make_scenario, make_scripted_provider, wait_until
from tests.evalhub.mcp_client.helpers import free_port, process_alive, stop, wait_for_port
from tests.evalhub.model_client.scripted_server import ScriptedServer
from tests.faults import hostile_model

HOSTILE_SERVER = str(Path(__file__).resolve().parent / "hostile_server.py")
# Generous where a bound is not what the case is about: on a loaded machine the SDK alone takes 1-2 s to
# import, and a bound that is not being tested must never be what ends the run.
SLACK = 30.0


@dataclass(frozen=True)
class Outcome:
    """How a run that met a fault must end. `sentence` may hold {port}, {base}, {seconds} (any "1.2") and
    {count} (any whole number)."""

    status: str
    stop_reason: str
    step: str = ""
    kind: str = ""
    sentence: str = ""
    steps: int = 0  # model turns kept in the transcript
    results: int = 0  # tool calls kept with their results
    verdict: str = "fail"
    cause: str = ""  # whose failure it was (runs.verdict), "" when it passed


def completed(*, steps: int = 2, results: int = 1, cause: str = "") -> Outcome:
    """The run is not disturbed: the agent finishes and the run is scored (failed by `cause` when given)."""
    return Outcome("done", "completed", steps=steps, results=results, verdict="fail" if cause else "pass", cause=cause)


def failed(cause: str, step: str, kind: str, sentence: str, *, steps: int = 0, results: int = 0) -> Outcome:
    """The run ends in error at `step` with exactly this kind and sentence, keeping what came before. A server's or
    agent's failure fails it; anyone else's (provider, EvalHub) leaves it inconclusive."""
    verdict = "fail" if cause in ("server", "agent") else "inconclusive"
    return Outcome("error", "error", step, kind, sentence, steps=steps, results=results, verdict=verdict, cause=cause)


def assert_outcome(run: Run, expected: Outcome, **values: str) -> None:
    passed = {"pass": True, "fail": False}.get(expected.verdict)
    assert (run.status, run.stop_reason, run.verdict, run.failure_cause, run.passed) == (
        expected.status,
        expected.stop_reason,
        expected.verdict,
        expected.cause,
        passed,
    ), (run.error, run.failure_reason)
    if expected.kind:
        assert run.error is not None
        assert (run.error["step"], run.error["kind"]) == (expected.step, expected.kind)
        assert re.fullmatch(sentence_pattern(expected.sentence, **values), run.error["message"]), run.error["message"]
    else:
        assert run.error is None
    steps = run.transcript["steps"]
    assert (len(steps), len(run.all_tool_calls)) == (expected.steps, expected.results), steps
    assert len(run.model_calls) == expected.steps


def sentence_pattern(sentence: str, **values: str) -> str:
    pattern = re.escape(sentence)
    for name, value in values.items():
        pattern = pattern.replace(re.escape(f"{{{name}}}"), re.escape(value))
    return pattern.replace(re.escape("{seconds}"), r"\d+\.\d").replace(re.escape("{count}"), r"\d+")


def rows(cases: Sequence[Any]) -> list[Any]:
    """A table's rows as pytest params: named by their `id`, and strictly expected to fail when `xfail` says why."""
    return [
        pytest.param(case, id=case.id, marks=[pytest.mark.xfail(strict=True, reason=case.xfail)] if case.xfail else [])
        for case in cases
    ]


def live_descendants(root: int) -> set[int]:
    """Every live (not zombie) process below `root` in the process tree, read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if fields[0] not in ("Z", "X"):
            children.setdefault(int(fields[1]), []).append(int(entry))
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


class ProcessWatch:
    """The processes a run may leave behind: the hostile server and its helper (from its pidfile), and anything
    below the process executing the run (this test process, or a worker) that was not there before it."""

    def __init__(self, pidfile: Path, *, root: int) -> None:
        self.pidfile = pidfile
        self.root = root
        self.before = live_descendants(root)

    def assert_none_left(self) -> None:
        if self.pidfile.exists():
            server, helper = (int(pid) for pid in self.pidfile.read_text().split())
            assert not process_alive(server), f"the server (pid {server}) outlived the run"
            assert not process_alive(helper), f"the server's helper (pid {helper}) outlived the run"
        left = live_descendants(self.root) - self.before
        assert not left, f"processes left below pid {self.root}: {sorted(left)}"


def hostile_stdio_server(
    mode: str, pidfile: Path, *, connect_timeout: float = SLACK, request_timeout: float = SLACK
) -> McpServer:
    return make_demo_server(
        name=f"Hostile {mode}",
        args=[HOSTILE_SERVER, "--mode", mode, "--pidfile", str(pidfile)],
        connect_timeout=connect_timeout,
        request_timeout=request_timeout,
    )


@contextmanager
def hostile_http_process(mode: str) -> Iterator[int]:
    """The hostile server over Streamable HTTP in a process of the test's own (it stands for a remote host)."""
    port = free_port()
    process = subprocess.Popen(
        [PYTHON, HOSTILE_SERVER, "--mode", mode, "--http", "--port", str(port)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield port
    finally:
        stop(process)


def hostile_http_server(
    mode: str,
    url: str,
    *,
    owner: User,
    name: str = "",
    bearer_token: str = "",
    connect_timeout: float = SLACK,
    request_timeout: float = SLACK,
) -> McpServer:
    """The server record; `owner` matters: only servers staff added may reach 127.0.0.1 (issue 18, finding 6)."""
    server = McpServer(
        name=name or f"Hostile {mode} over HTTP",
        transport=McpServer.Transport.HTTP,
        url=url,
        created_by=owner,
        connect_timeout=connect_timeout,
        request_timeout=request_timeout,
    )
    server.set_secrets(bearer_token=bearer_token, env={}, headers={})
    server.save()
    return server


def local_url(port: int, host: str = "127.0.0.1") -> str:
    return f"http://{host}:{port}/mcp"


def execute_here(scenario: Scenario, user: User) -> Run:
    """Start a run and execute it in this process, as the worker's task does."""
    run = run_start(scenario=scenario, user=user)
    pipeline.execute_run(run.pk, worker="corpus")
    return Run.objects.get(pk=run.pk)


def execute_on_worker(scenario: Scenario, user: User) -> Run:
    """Start a run and wait for the real worker process (the `worker` fixture) to finish it."""
    run = run_start(scenario=scenario, user=user)
    finished = Run.objects.filter(pk=run.pk, status__in=Run.FINISHED).exists
    wait_until(finished, timeout=60, what=f"the worker to finish run {run.pk}")
    return Run.objects.get(pk=run.pk)


def assert_next_run_succeeds(
    execute: Callable[[Scenario], Run], scripted: ScriptedServer, healthy_port: int, *, owner: User
) -> None:
    """A well-behaved server and model, on the same pipeline or worker (`execute` runs a scenario there).

    The healthy server is reached over HTTP (one process for the whole session): what is under test is the
    pipeline or worker that met the fault, and sparing a server start per case keeps the corpus fast.
    """
    scripted.answers.clear()  # what the fault left unasked
    hostile_model.script(scripted, "healthy")
    server = hostile_http_server("healthy", local_url(healthy_port), owner=owner)
    provider = make_scripted_provider(scripted.base_url, name="Scripted, next run")
    run = execute(make_scenario(server, provider=provider, name="Next run", expected_tools=["act"]))
    assert (run.status, run.stop_reason, run.passed, run.tool_names) == ("done", "completed", True, ["act"]), run.error
