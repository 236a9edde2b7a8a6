"""A run end to end in this process: real MCP servers over stdio, the offline model or a scripted endpoint."""

from __future__ import annotations

import json
import threading
from decimal import Decimal
from typing import Any

import pytest
from django.contrib.auth.models import User

from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from runs import pipeline
from runs.models import Run
from runs.services import run_start
from tests.base import make_demo_server, make_scenario, make_scripted_provider, wait_until
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, openai_error, tool_call

TINY_SERVER = "tests/evalhub/mcp_client/fixtures/tiny_server.py"


def execute(scenario: Scenario, user: User, **settings: Any) -> Run:
    run = run_start(scenario=scenario, user=user)
    if settings:
        Run.objects.filter(pk=run.pk).update(settings={**run.settings, **settings})
    pipeline.execute_run(run.pk, worker="test-worker")
    return Run.objects.get(pk=run.pk)


def scripted_scenario(server: McpServer, scripted: ScriptedServer, **overrides: Any) -> Scenario:
    return make_scenario(server, provider=make_scripted_provider(scripted.base_url), **overrides)


def tiny_server() -> McpServer:
    return make_demo_server(name="Tiny", args=[TINY_SERVER])


@pytest.mark.django_db(transaction=True)
class PipelineTests:
    def test_the_offline_agent_calls_the_demo_server_and_the_run_is_recorded_in_the_reference_shapes(
        self, alice: User
    ) -> None:
        run = execute(make_scenario(make_demo_server()), alice)

        assert (run.status, run.stop_reason, run.score, run.passed) == ("done", "completed", 1.0, True)
        assert run.score_reason == "All expected tools were called: get_weather."
        transcript = run.transcript
        assert set(transcript) == {"prompt", "steps", "finalText"}
        assert transcript["prompt"] == "What's the weather at latitude 48.85, longitude 2.35?"
        first, last = transcript["steps"]
        assert first["finishReason"] == "tool_calls"
        assert first["toolCalls"] == [{"toolName": "get_weather", "args": {"latitude": 48.85, "longitude": 2.35}}]
        assert first["toolResults"][0]["toolName"] == "get_weather"
        assert first["toolResults"][0]["result"]["structuredContent"]["latitude"] == 48.85
        assert last["finishReason"] == "stop" and last["text"] == transcript["finalText"] == run.final_text
        (call,) = run.all_tool_calls
        assert set(call) == {
            "toolName",
            "args",
            "result",
            "timestamp",
            "durationMs",
            "isError",
            "nestedCalls",
            "schemaValidation",
        }
        assert call["schemaValidation"] == {"valid": True, "message": ""}
        assert call["nestedCalls"] == [] and call["isError"] is False
        assert run.tool_calls == run.all_tool_calls
        assert run.tools_hash == run.tool_snapshot.tools_hash  # type: ignore[union-attr]
        assert len(run.model_calls) == 2 and run.cost_usd == 0
        assert run.input_tokens == sum(c["input_tokens"] for c in run.model_calls) > 0
        assert run.score_results.get().scorer_kind == "default"

    def test_a_duplicate_delivery_does_nothing(self, alice: User) -> None:
        run = execute(make_scenario(make_demo_server()), alice)
        finished = run.finished_at

        pipeline.execute_run(run.pk, worker="second-delivery")

        run.refresh_from_db()
        assert (run.worker, run.finished_at, len(run.model_calls)) == ("test-worker", finished, 2)

    def test_tokens_and_cost_come_from_the_providers_usage(self, alice: User, scripted: ScriptedServer) -> None:
        scripted.script(
            Answer(body=completion(tool_calls=[tool_call("c1", "get_weather", '{"latitude": 1, "longitude": 2}')])),
            Answer(body=completion(content="Sunny.", prompt_tokens=1500, completion_tokens=10, cached_tokens=0)),
        )

        provider = make_scripted_provider(
            scripted.base_url, price_overrides={"gpt-4o": {"input": "2.50", "output": "10"}}
        )

        run = execute(make_scenario(make_demo_server(), provider=provider), alice)

        assert (run.input_tokens, run.output_tokens, run.cached_tokens) == (2700, 40, 1024)
        # (1200 * 2.50 + 30 * 10) / 1M + (1500 * 2.50 + 10 * 10) / 1M
        assert run.cost_usd == Decimal("0.007150")
        assert [call["cost_source"] for call in run.model_calls] == ["override", "override"]
        assert scripted.received[0].json["tools"][0]["function"]["name"] == "get_weather"
        assert scripted.received[1].json["messages"][-1]["role"] == "tool"

    def test_a_local_model_without_a_price_has_an_unknown_cost(self, alice: User, scripted: ScriptedServer) -> None:
        scripted.script(Answer(body=completion(content="Hi.")))

        run = execute(scripted_scenario(make_demo_server(), scripted), alice)

        assert run.cost_usd is None
        assert run.model_calls[0]["cost_usd"] is None and run.input_tokens == 1200

    def test_malformed_tool_arguments_are_recorded_and_answered_with_an_error(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        scripted.script(
            Answer(body=completion(tool_calls=[tool_call("c1", "get_weather", '{"latitude": 48.85, longitude')])),
            Answer(body=completion(content="Sorry, I could not call the tool.")),
        )

        run = execute(scripted_scenario(make_demo_server(), scripted), alice)

        (call,) = run.all_tool_calls
        assert call["rawArguments"] == '{"latitude": 48.85, longitude'
        assert call["isError"] is True and call["args"] == {} and call["refused"] == "invalid_arguments"
        assert "Invalid arguments: not a JSON object" in call["result"]["content"][0]["text"]
        assert (run.verdict, run.failure_cause) == ("fail", "agent")
        assert run.status == "done" and run.final_text == "Sorry, I could not call the tool."

    def test_max_turns_stops_the_loop(self, alice: User, scripted: ScriptedServer) -> None:
        looping = completion(tool_calls=[tool_call("c", "get_weather", '{"latitude": 1, "longitude": 1}')])
        scripted.script(Answer(body=looping), Answer(body=looping), Answer(body=looping))

        run = execute(scripted_scenario(make_demo_server(), scripted, max_turns=2), alice)

        assert (run.status, run.stop_reason) == ("done", "max_turns")
        assert len(run.transcript["steps"]) == 2 and len(run.all_tool_calls) == 2
        assert "finalText" not in run.transcript
        assert len(scripted.received) == 2

    def test_max_tool_calls_stops_the_loop(self, alice: User, scripted: ScriptedServer) -> None:
        calls = [tool_call(f"c{i}", "get_weather", '{"latitude": 1, "longitude": 1}') for i in range(3)]
        scripted.script(Answer(body=completion(tool_calls=calls)))

        run = execute(scripted_scenario(make_demo_server(), scripted, max_tool_calls=2), alice)

        assert (run.stop_reason, len(run.all_tool_calls)) == ("max_tool_calls", 2)

    def test_the_time_limit_stops_the_run_and_keeps_its_transcript(self, alice: User, scripted: ScriptedServer) -> None:
        scripted.script(Answer(body=completion(tool_calls=[tool_call("c1", "wait", '{"seconds": 30}')])))

        # 6 s leaves time to start the server and ask the model even on a loaded machine.
        run = execute(scripted_scenario(make_demo_server(), scripted), alice, time_limit_seconds=6)

        assert (run.status, run.stop_reason) == ("done", "time_limit")
        assert run.transcript["steps"][0]["toolCalls"] == [{"toolName": "wait", "args": {"seconds": 30}}]
        assert run.duration_ms is not None and 6000 <= run.duration_ms < 20000  # stopped long before the 30 s wait

    def test_a_server_crash_mid_run_is_an_error_at_that_step_with_the_transcript_kept(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        scripted.script(Answer(body=completion(tool_calls=[tool_call("c1", "crash", "{}")])))

        run = execute(scripted_scenario(tiny_server(), scripted), alice)

        assert (run.status, run.stop_reason, run.passed) == ("error", "error", False)
        assert run.error["step"] == "agent"  # type: ignore[index]
        assert "crash" in run.error["message"] or "exit" in run.error["message"]  # type: ignore[index]
        assert run.transcript["steps"][0]["toolCalls"] == [{"toolName": "crash", "args": {}}]

    def test_a_provider_failure_is_an_error_at_the_model_call(self, alice: User, scripted: ScriptedServer) -> None:
        scripted.script(openai_error(401, "Incorrect API key provided: sk-test***", code="invalid_api_key"))

        run = execute(scripted_scenario(make_demo_server(), scripted), alice)

        assert run.status == "error"
        assert run.error["step"] == "model call 1"  # type: ignore[index]
        assert "rejected the API key (401)" in run.error["message"]  # type: ignore[index]
        assert run.transcript["prompt"] and run.transcript["steps"] == []

    def test_a_server_that_cannot_start_fails_at_connect(self, alice: User) -> None:
        server = make_demo_server(command="/nonexistent/mcp-server", args=[])

        run = execute(make_scenario(server), alice)

        assert run.status == "error" and run.error["step"] == "connect"  # type: ignore[index]
        assert "/nonexistent/mcp-server" in run.error["message"]  # type: ignore[index]

    def test_cancelling_a_running_run_stops_at_the_next_step(self, alice: User, scripted: ScriptedServer) -> None:
        scripted.script(
            Answer(body=completion(tool_calls=[tool_call("c1", "wait", '{"seconds": 1}')])),
            Answer(body=completion(content="never reached")),
        )
        run = run_start(scenario=scripted_scenario(make_demo_server(), scripted), user=alice)
        worker = threading.Thread(target=pipeline.execute_run, args=(run.pk,), kwargs={"worker": "w"})
        worker.start()
        wait_until(lambda: Run.objects.get(pk=run.pk).transcript["steps"], timeout=30, what="the first step")

        Run.objects.filter(pk=run.pk).update(cancel_requested=True)
        worker.join(timeout=30)

        run.refresh_from_db()
        assert (run.status, run.stop_reason) == ("cancelled", "cancelled")
        assert len(run.all_tool_calls) == 1 and len(scripted.received) == 1
        assert run.score is None


def _invalid_output_server() -> McpServer:
    return make_demo_server(name="Broken output", args=["tests/runs/fixtures/invalid_output_server.py"])


@pytest.mark.django_db(transaction=True)
class OutputSchemaTests:
    def test_invalid_structured_content_is_recorded_not_fatal(self, alice: User, scripted: ScriptedServer) -> None:
        scripted.script(
            Answer(body=completion(tool_calls=[tool_call("c1", "forecast", '{"city": "Paris"}')])),
            Answer(body=completion(content="Done.")),
        )

        run = execute(scripted_scenario(_invalid_output_server(), scripted, expected_tools=["forecast"]), alice)

        (call,) = run.all_tool_calls
        assert run.status == "done"
        assert call["schemaValidation"]["valid"] is False
        assert "temperature_c" in call["schemaValidation"]["message"]
        assert json.dumps(call["result"]["structuredContent"]) == '{"temperature_c": "warm"}'
