"""Runs with injected faults against the real demo server (stdio or HTTP) and a scripted model endpoint."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.models import User

from evalhub.servers.models import McpServer
from runs import pipeline
from runs.models import Run
from runs.services import run_start
from runs.tasks import execute_run
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call

WEATHER_ARGS = json.dumps({"latitude": 48.85, "longitude": 2.35})


def demo_server(transport: str, *, owner: User, request_timeout: float = 30.0, port: int = 0) -> McpServer:
    if transport == "stdio":
        return make_demo_server(request_timeout=request_timeout, connect_timeout=30)
    # Servers on 127.0.0.1 are staff's to add (owner is staff).
    server = McpServer(
        name="Demo over HTTP",
        transport=McpServer.Transport.HTTP,
        url=f"http://127.0.0.1:{port}/mcp",
        created_by=owner,
        connect_timeout=30,
        request_timeout=request_timeout,
    )
    server.set_secrets(bearer_token="", env={}, headers={})
    server.save()
    return server


def call(name: str, arguments: str = WEATHER_ARGS, *, call_id: str = "call_1") -> Answer:
    return Answer(body=completion(content=None, tool_calls=[tool_call(call_id, name, arguments)]))


def answer(text: str) -> Answer:
    return Answer(body=completion(content=text))


def run_with_faults(
    scripted: ScriptedServer,
    server: McpServer,
    user: User,
    fault_injection: dict[str, Any],
    *answers: Answer,
    via_task: bool = False,
    **scenario: Any,
) -> Run:
    """A scenario with `fault_injection` run in this process: by the pipeline, or `via_task` by the worker's task
    itself (which then pushes its trace, runs/traces)."""
    scripted.script(*answers)
    provider = make_scripted_provider(scripted.base_url)
    made = make_scenario(server, provider=provider, model="gpt-4o", fault_injection=fault_injection, **scenario)
    run = run_start(scenario=made, user=user)
    if via_task:
        execute_run.apply(args=[run.pk])
    else:
        pipeline.execute_run(run.pk, worker="faults")
    return Run.objects.get(pk=run.pk)


def text_of(record: dict[str, Any]) -> str:
    return " ".join(item.get("text", "") for item in record["result"].get("content", []))
