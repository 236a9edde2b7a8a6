"""Code-mode runs end to end in this process: real MCP servers over stdio, the real V8 sandbox host, the offline
model or a scripted OpenAI-compatible endpoint."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User

from evalhub.demo import seed_demo_scenarios, seed_demo_scorers, seed_demo_server
from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from runs import pipeline
from runs.code_mode.execute import MAX_TOOL_CALLS_PER_EXECUTION
from runs.models import Run
from runs.services import run_start
from scorers.contract import EXAMPLE_SCORER
from scorers.models import Scorer
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call

INVALID_OUTPUT_SERVER = "tests/runs/fixtures/invalid_output_server.py"


def execute(scenario: Scenario, user: User) -> Run:
    run = run_start(scenario=scenario, user=user)
    pipeline.execute_run(run.pk, worker="test-worker")
    return Run.objects.get(pk=run.pk)


def program(scripted: ScriptedServer, code: str, answer: str = "Done.") -> None:
    """The scripted model writes `code` once, then answers."""
    scripted.script(
        Answer(body=completion(tool_calls=[tool_call("c1", "run_code", json.dumps({"code": code}))])),
        Answer(body=completion(content=answer)),
    )


def code_scenario(server: McpServer, scripted: ScriptedServer, **overrides: Any) -> Scenario:
    provider = make_scripted_provider(scripted.base_url)
    return make_scenario(server, provider=provider, tool_mode="code", **overrides)


@pytest.mark.django_db(transaction=True)
class OfflineCodeModeTests:
    def test_the_offline_model_writes_a_program_whose_get_weather_call_is_nested_and_scored_by_the_reference(
        self, alice: User
    ) -> None:
        scenario = make_scenario(make_demo_server(), tool_mode="code")
        reference = Scorer.objects.create(name="Reference get_weather", kind="code", code=EXAMPLE_SCORER)
        reference.scenarios.add(scenario)

        run = execute(scenario, alice)

        assert (run.status, run.stop_reason, run.passed) == ("done", "completed", True)
        assert run.settings["tool_mode"] == "code"
        (top,) = run.tool_calls
        assert top["toolName"] == "run_code" and top["isError"] is False
        assert "await tools.get_weather(" in top["args"]["code"]
        (nested,) = top["nestedCalls"]
        assert nested["toolName"] == "get_weather"
        assert nested["args"] == {"latitude": 48.85, "longitude": 2.35}
        assert nested["schemaValidation"] == {"valid": True, "message": ""}
        assert nested["isError"] is False and nested["result"]["structuredContent"]["latitude"] == 48.85
        assert {"timestamp", "durationMs"} <= set(nested)
        assert top["returnValue"]["location"] == nested["result"]["structuredContent"]["location"]
        assert top["console"] == []  # the offline model's program returns its result without logging it too
        assert "Return value: " in top["result"]["content"][0]["text"]
        assert [call["toolName"] for call in run.all_tool_calls] == ["run_code", "get_weather"]
        assert run.all_tool_calls[1] == nested
        assert run.transcript["steps"][0]["toolCalls"][0]["toolName"] == "run_code"
        scores = {result.scorer_name: result.score for result in run.score_results.all()}
        assert scores["Reference get_weather"] == 1.0
        # The offline model read the program's return value back and summarised the weather.
        assert "Paris" in run.final_text

    def test_the_reference_scorer_fails_a_code_mode_run_whose_program_never_called_get_weather(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        program(scripted, "return 1 + 1;")
        scenario = code_scenario(make_demo_server(), scripted)
        Scorer.objects.create(name="Reference get_weather", kind="code", code=EXAMPLE_SCORER).scenarios.add(scenario)

        run = execute(scenario, alice)

        assert run.tool_calls[0]["returnValue"] == 2 and run.tool_calls[0]["nestedCalls"] == []
        assert run.score_results.get(scorer_name="Reference get_weather").score == 0.0


@pytest.mark.django_db(transaction=True)
class ScriptedCodeModeTests:
    def test_the_model_is_offered_only_run_code_with_the_tools_as_a_typed_api(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        program(scripted, "return Object.keys(tools);")

        run = execute(code_scenario(make_demo_server(), scripted), alice)

        (offered,) = scripted.received[0].json["tools"]
        assert offered["function"]["name"] == "run_code"
        description = offered["function"]["description"]
        assert "  get_weather(args: {\n" in description and "    latitude: number;\n" in description
        assert "/** Latitude in degrees, -90 (south) to 90 (north). */" in description
        assert run.tool_calls[0]["returnValue"] == [
            "get_weather",
            "search_flights",
            "book_flight",
            "cancel_booking",
            "wait",
        ]

    def test_a_tool_error_rejects_in_the_program_and_is_a_nested_error(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        code = """
        try {
          await tools.get_weather({ latitude: 123, longitude: 2 });
        } catch (error) {
          console.log("caught:", error.message);
        }
        return await tools.get_weather({ latitude: 48.85, longitude: 2.35 });
        """
        program(scripted, code)

        run = execute(code_scenario(make_demo_server(), scripted), alice)

        top = run.tool_calls[0]
        failed, worked = top["nestedCalls"]
        assert failed["isError"] is True and "latitude must be between -90 and 90" in json.dumps(failed["result"])
        assert "schemaValidation" not in failed
        assert worked["isError"] is False and worked["schemaValidation"]["valid"] is True
        assert top["isError"] is False
        assert top["console"][0].startswith("caught: tools.get_weather:") and "(got 123)" in top["console"][0]
        assert [call["toolName"] for call in run.all_tool_calls] == ["run_code", "get_weather", "get_weather"]

    def test_an_exception_goes_back_to_the_model_as_a_tool_error(self, alice: User, scripted: ScriptedServer) -> None:
        program(scripted, 'console.log("before");\nthrow new Error("no luck");')

        run = execute(code_scenario(make_demo_server(), scripted), alice)

        top = run.tool_calls[0]
        assert top["isError"] is True and top["result"]["isError"] is True
        assert top["console"] == ["before"] and top["returnValue"] is None
        sent = scripted.received[1].json["messages"][-1]
        assert sent["role"] == "tool"
        assert sent["content"].startswith("Error: The code threw Error: no luck")
        assert "Console:\nbefore" in sent["content"]

    def test_the_per_execution_call_cap_stops_the_program(self, alice: User, scripted: ScriptedServer) -> None:
        program(scripted, "for (let i = 0; i < 50; i++) await tools.get_weather({ latitude: i, longitude: 0 });")

        run = execute(code_scenario(make_demo_server(), scripted), alice)

        top = run.tool_calls[0]
        assert len(top["nestedCalls"]) == MAX_TOOL_CALLS_PER_EXECUTION
        assert [call["args"]["latitude"] for call in top["nestedCalls"]] == list(range(MAX_TOOL_CALLS_PER_EXECUTION))
        assert top["isError"] is True
        assert f"at most {MAX_TOOL_CALLS_PER_EXECUTION} tool calls" in top["result"]["content"][0]["text"]
        assert len(run.all_tool_calls) == 1 + MAX_TOOL_CALLS_PER_EXECUTION

    def test_max_tool_calls_counts_the_calls_programs_make_not_the_run_code_calls(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        three = "for (let i = 0; i < 3; i++) await tools.get_weather({ latitude: i, longitude: 0 });"
        scripted.script(
            *[
                Answer(body=completion(tool_calls=[tool_call(f"c{n}", "run_code", json.dumps({"code": three}))]))
                for n in range(3)
            ],
            Answer(body=completion(content="Done.")),
        )

        run = execute(code_scenario(make_demo_server(), scripted, max_tool_calls=5), alice)

        # 3 real calls, then the 2 left of the budget (the program's third is refused), then no more programs.
        assert [len(top["nestedCalls"]) for top in run.tool_calls] == [3, 2]
        refused = run.tool_calls[1]["result"]["content"][0]["text"]
        assert "may make at most 2 tool calls" in refused and "max_tool_calls" in refused
        assert run.stop_reason == "max_tool_calls"
        assert [call["toolName"] for call in run.all_tool_calls].count("get_weather") == 5

    def test_a_second_server_whose_output_breaks_its_schema_is_recorded_on_the_nested_call(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        server = make_demo_server(name="Invalid output", args=[INVALID_OUTPUT_SERVER])
        program(scripted, 'const f = await tools.forecast({ city: "Oslo" });\nreturn f;')

        run = execute(code_scenario(server, scripted), alice)

        (nested,) = run.tool_calls[0]["nestedCalls"]
        assert nested["toolName"] == "forecast" and nested["args"] == {"city": "Oslo"}
        assert nested["schemaValidation"]["valid"] is False
        assert "temperature_c" in nested["schemaValidation"]["message"]
        description = scripted.received[0].json["tools"][0]["function"]["description"]
        assert "forecast(args: {\n    city: string;\n  }): Promise<{\n    temperature_c: number;\n  }>;" in description

    def test_the_run_time_limit_stops_a_program_waiting_on_a_slow_tool(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        program(scripted, "await tools.wait({ seconds: 30 });\nreturn 'never';")
        scenario = code_scenario(make_demo_server(), scripted, time_limit_seconds=6)

        run = execute(scenario, alice)

        assert (run.status, run.stop_reason) == ("done", "time_limit")
        assert run.transcript["steps"][0]["toolCalls"][0]["toolName"] == "run_code"
        assert run.duration_ms is not None and 6000 <= run.duration_ms < 20000

    def test_calling_a_server_tool_directly_in_code_mode_is_an_unknown_tool(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        scripted.script(
            Answer(body=completion(tool_calls=[tool_call("c1", "get_weather", '{"latitude": 1, "longitude": 2}')])),
            Answer(body=completion(content="Oops.")),
        )

        run = execute(code_scenario(make_demo_server(), scripted), alice)

        (call,) = run.tool_calls
        assert call["isError"] is True and "Unknown tool 'get_weather'" in call["result"]["content"][0]["text"]
        # The server's tool by name, but EvalHub answered it: the agent's failure, not get_weather's error.
        assert call["refused"] == "unknown_tool"
        assert (run.verdict, run.failure_cause, run.failure_reason.split(";")[0]) == (
            "fail",
            "agent",
            "agent: 1 call(s) refused (get_weather)",
        )


@pytest.mark.django_db(transaction=True)
class DemoCodeModeTests:
    def test_the_demo_code_mode_weather_scenario_passes_its_expectations_and_the_reference_scorer(
        self, alice: User
    ) -> None:
        for seed in (seed_demo_server, seed_demo_scenarios, seed_demo_scorers):
            seed()
        scenario = Scenario.objects.get(name="Weather in Paris (code mode)")

        run = execute(scenario, alice)

        scores = {result.scorer_name: result.score for result in run.score_results.all()}
        assert scores == {"Weather coordinates valid": 1.0, "Expectations": 1.0}
        assert run.passed is True and run.settings["tool_mode"] == "code"
        assert [call["toolName"] for call in run.all_tool_calls] == ["run_code", "get_weather"]
