"""A variant changes what the model is offered and nothing the server receives but the names: real runs against a
stdio server that records every call it is sent, with a scripted OpenAI-compatible model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalhub.scenarios.models import Scenario
from runs import pipeline
from runs.experiments.models import Experiment
from runs.experiments.services import experiment_start_requested
from runs.models import Run
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call

RECORDING_SERVER = "tests/runs/fixtures/recording_server.py"
ARGS = {"origin": "CDG", "destination": "LHR", "date": "2026-12-01"}
VARIANT = {
    "name": "renamed",
    "tools": {
        "get_weather": {"description": "Weather now, by coordinates."},
        "search_flights": {
            "input_schema": {
                "type": "object",
                "properties": {"origin": {"type": "string"}, "destination": {"type": "string"}, "date": {}},
                "required": ["origin", "destination"],
            }
        },
    },
    "hide": ["book_flight"],
    "rename": {"search_flights": "find_flights"},
}


def recording_scenario(tmp_path: Path, scripted: ScriptedServer, **overrides: Any) -> tuple[Scenario, Path]:
    calls = tmp_path / "calls.jsonl"
    server = make_demo_server(name="Recording", args=[RECORDING_SERVER], env={"RECORD_CALLS_TO": str(calls)})
    provider = make_scripted_provider(scripted.base_url)
    scenario = make_scenario(
        server, provider=provider, prompt="Flights from CDG to LHR?", expected_tools=["search_flights"], **overrides
    )
    return scenario, calls


def received(calls: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in calls.read_text().splitlines()] if calls.exists() else []


def run_all(experiment: Experiment) -> list[Run]:
    for run in Run.objects.filter(experiment=experiment).order_by("pk"):
        pipeline.execute_run(run.pk, worker="test-worker")
    return list(Run.objects.filter(experiment=experiment).select_related("cell").order_by("pk"))


def offered(request_json: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {tool["function"]["name"]: tool["function"] for tool in request_json["tools"]}


@pytest.mark.django_db(transaction=True)
class VariantRunTests:
    def test_the_model_is_offered_the_variant_and_the_server_receives_the_same_calls_by_their_real_names(
        self, tmp_path: Path, scripted: ScriptedServer
    ) -> None:
        scenario, calls = recording_scenario(tmp_path, scripted)
        arguments = json.dumps(ARGS)
        scripted.script(
            Answer(body=completion(content=None, tool_calls=[tool_call("c1", "search_flights", arguments)])),
            Answer(body=completion(content="Two flights.")),
            # Under the variant: the renamed tool, and the hidden one, which must never reach the server.
            Answer(
                body=completion(
                    content=None,
                    tool_calls=[
                        tool_call("c1", "find_flights", arguments),
                        tool_call("c2", "book_flight", json.dumps({**ARGS, "passengers": 1})),
                    ],
                )
            ),
            Answer(body=completion(content="Two flights.")),
        )
        experiment = experiment_start_requested(
            scenario_ids=[scenario.pk],
            models=[("gpt-4o", scenario.provider_id)],
            trials=1,
            variants=[VARIANT],
            user=None,
        )

        served, variant = run_all(experiment)

        assert (served.cell.variant, variant.cell.variant) == ("", "renamed")
        as_served, under_variant = offered(scripted.received[0].json), offered(scripted.received[2].json)
        assert sorted(as_served) == ["book_flight", "get_weather", "search_flights"]
        assert sorted(under_variant) == ["find_flights", "get_weather"]
        # Exactly the variant's changes, and nothing else of each tool.
        assert under_variant["get_weather"] == {
            **as_served["get_weather"],
            "description": "Weather now, by coordinates.",
        }
        assert under_variant["find_flights"] == {
            **as_served["search_flights"],
            "name": "find_flights",
            "parameters": VARIANT["tools"]["search_flights"]["input_schema"],  # type: ignore[index]
        }
        # The server was sent the same call both times, by its own name; the hidden tool was never called.
        assert received(calls) == [{"name": "search_flights", "arguments": ARGS}] * 2
        first = variant.transcript["steps"][0]
        assert [(c["toolName"], c.get("offeredName")) for c in first["toolCalls"]] == [
            ("search_flights", "find_flights"),
            ("book_flight", None),
        ]
        renamed, hidden = variant.tool_calls
        assert (renamed["toolName"], renamed["offeredName"], renamed["args"]) == (
            "search_flights",
            "find_flights",
            ARGS,
        )
        assert hidden["isError"] and "Unknown tool 'book_flight'" in hidden["result"]["content"][0]["text"]
        assert hidden["refused"] == "unknown_tool" and "refused" not in renamed
        assert "offeredName" not in served.tool_calls[0]
        assert variant.settings["variant"]["rename"] == {"search_flights": "find_flights"}
        # Scoring reads the real names: the expected tool was called under both surfaces; the variant's trial
        # fails only for calling a tool it was not offered, which the server was never asked: the agent's mistake.
        assert served.passed is True and served.score_reason.startswith("All expected tools were called")
        assert (variant.verdict, variant.failure_cause) == ("fail", "agent")
        assert variant.failure_reason.startswith("agent: 1 call(s) refused (book_flight); ")

    def test_code_mode_offers_the_variant_as_the_typed_api_and_maps_the_program_s_calls_back(
        self, tmp_path: Path, scripted: ScriptedServer
    ) -> None:
        scenario, calls = recording_scenario(tmp_path, scripted, tool_mode="code")
        program = "return await tools.find_flights(" + json.dumps(ARGS) + ");"
        scripted.script(
            Answer(
                body=completion(content=None, tool_calls=[tool_call("c1", "run_code", json.dumps({"code": program}))])
            ),
            Answer(body=completion(content="Two flights.")),
        )
        experiment = experiment_start_requested(
            scenario_ids=[scenario.pk], models=[("gpt-4o", scenario.provider_id)], trials=1, user=None
        )
        Run.objects.filter(experiment=experiment).update(
            settings={**Run.objects.get(experiment=experiment).settings, "variant": VARIANT}
        )

        (run,) = run_all(experiment)

        (tool,) = scripted.received[0].json["tools"]
        api = tool["function"]["description"]
        assert "find_flights" in api and "search_flights" not in api and "book_flight" not in api
        assert received(calls) == [{"name": "search_flights", "arguments": ARGS}]
        nested = run.all_tool_calls[1]
        assert (nested["toolName"], nested["offeredName"], nested["args"]) == ("search_flights", "find_flights", ARGS)
        assert run.passed is True
