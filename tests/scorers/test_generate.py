"""The magic wand: templates without a model, and a real model behind a scripted OpenAI-compatible endpoint."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

import pytest

from evalhub.model_client import ProviderConfig, offline_config
from scorers.contract import EXAMPLE_DESCRIPTION, EXAMPLE_SCORER, SCORER_TYPES
from scorers.generate import extract_code, generate_scorer
from scorers.sandbox import run_scorer
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, openai_error
from tests.scorers.records import flight_record, mcp_result, no_call_record, record, tool_call, weather_record

WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Get current weather for a location given latitude/longitude",
    "inputSchema": {
        "type": "object",
        "properties": {"latitude": {"type": "number"}, "longitude": {"type": "number"}},
        "required": ["latitude", "longitude"],
    },
}
FLIGHT_TOOL = {
    "name": "book_flight",
    "description": "Book a flight",
    "inputSchema": {
        "type": "object",
        "properties": {
            "origin": {"type": "string"},
            "destination": {"type": "string"},
            "date": {"type": "string"},
            "passengers": {"type": "integer"},
        },
        "required": ["origin", "destination", "date", "passengers"],
    },
}
TOOLS = [WEATHER_TOOL, FLIGHT_TOOL]


def template(description: str, tools: list[dict[str, Any]] = TOOLS) -> Any:
    return generate_scorer(description=description, tools=tools, provider=None, model=None)


def score(code: str, scored: dict[str, Any]) -> float | None:
    outcome = run_scorer(code, scored)
    assert outcome.ok, outcome.error
    return outcome.score


class TemplateTests:
    def test_the_reference_description_gives_the_reference_behaviour(self) -> None:
        generated = template(EXAMPLE_DESCRIPTION)

        assert generated.source == "template"
        assert score(generated.code, weather_record(48.85, 2.35)) == 1.0
        assert score(generated.code, weather_record(95, 2.35)) == 0.0
        assert score(generated.code, no_call_record()) == 0.0
        assert generated.note.startswith(
            "Template scorer (no AI model was used): tool called (get_weather); "
            "argument ranges (latitude -90..90, longitude -180..180)."
        )
        assert "Not understood" not in generated.note

    @pytest.mark.parametrize(
        "scored",
        [
            weather_record(48.85, 2.35),
            weather_record(-90, -180),
            weather_record(90.001, 0),
            weather_record(0, 180.5),
            weather_record("48", 2),
            weather_record(None, None),
            no_call_record(),
            flight_record(booked=True),
        ],
    )
    def test_it_scores_like_the_reference_scorer(self, scored: dict[str, Any]) -> None:
        generated = template(EXAMPLE_DESCRIPTION)

        assert score(generated.code, scored) == score(EXAMPLE_SCORER, scored)

    def test_a_failed_check_is_logged(self) -> None:
        outcome = run_scorer(template(EXAMPLE_DESCRIPTION).code, weather_record(95, 2.35))

        assert [line.text for line in outcome.console] == ["get_weather: latitude is not a number from -90 to 90: 95"]

    @pytest.mark.parametrize(
        "description",
        [
            "The agent should not call book_flight: the request lacks the origin, dates and passengers.",
            "Book_flight must never be called for this prompt.",
            "Check that the agent refrains from calling book_flight.",
            "Score 1 when book_flight is not called, otherwise 0.",
        ],
    )
    def test_a_restraint_description_scores_1_when_the_tool_is_not_called(self, description: str) -> None:
        generated = template(description)

        assert score(generated.code, flight_record(booked=False)) == 1.0
        assert score(generated.code, flight_record(booked=True)) == 0.0
        assert score(generated.code, weather_record(1, 2)) == 1.0
        assert "tool not called (book_flight)" in generated.note

    def test_a_restraint_without_a_tool_name_means_no_tool_at_all(self) -> None:
        generated = template("No tools should be called: the request is missing details.")

        assert score(generated.code, flight_record(booked=False)) == 1.0
        assert score(generated.code, weather_record(1, 2)) == 0.0
        assert "no tool called" in generated.note

    def test_an_unknown_tool_falls_back_and_says_so(self) -> None:
        generated = template("Verify that book_hotel is called with a city argument.")

        assert score(generated.code, weather_record(1, 2)) == 1.0
        assert score(generated.code, no_call_record()) == 0.0
        assert "some tool called (fallback: no tool of this server is named in the description)" in generated.note
        assert "book_hotel is not a tool of this server (its tools: get_weather, book_flight)." in generated.note

    def test_tools_are_matched_by_their_words(self) -> None:
        generated = template("The weather tool must be called.")

        assert "tool called (get_weather)" in generated.note
        assert "Matched get_weather from words of the description." in generated.note

    def test_required_arguments_are_checked(self) -> None:
        generated = template("book_flight is called with the required arguments.")
        complete = flight_record(booked=True)
        call = tool_call("book_flight", {"destination": "Paris", "date": ""}, mcp_result("error"))
        incomplete = record("Book me a flight to Paris", [call], "Failed.")

        assert score(generated.code, complete) == 1.0
        assert score(generated.code, incomplete) == 0.0
        assert "required arguments (origin, destination, date, passengers)" in generated.note

    def test_ranges_of_arguments_the_tool_lacks_are_reported(self) -> None:
        generated = template("book_flight is called with passengers between 1 and 9 and seats between 1 and 2.")

        assert "argument ranges (passengers 1..9)" in generated.note
        assert "'seats' is not an argument of book_flight: its range check was skipped." in generated.note

    def test_what_is_not_understood_is_listed(self) -> None:
        generated = template("get_weather is called. The agent should be quick. Give 0.5 for partial credit.")

        assert 'Not understood: "The agent should be quick."' in generated.note
        assert "Partial scores are not supported" in generated.note

    def test_a_criterion_on_the_final_answer_is_named_as_not_expressed(self) -> None:
        description = "Score 1 if get_weather is called and the final answer mentions the city name it returned."

        generated = template(description)

        expected = f'Not expressed, because templates check only tool calls and their arguments: "{description}"'
        assert expected in generated.note
        assert "// Not checked here: what the final answer says" in generated.code

    def test_tool_names_that_clash_in_javascript_get_distinct_variables(self) -> None:
        tools = [{"name": "all_tool"}, {"name": "get-weather"}, {"name": "getWeather"}, {"name": "2fa"}]
        calls = [tool_call(tool["name"], {}, mcp_result("ok")) for tool in tools]

        generated = template("all_tool, get-weather, getWeather and 2fa are called.", tools)

        assert score(generated.code, record("All", calls, "Done.")) == 1.0
        assert score(generated.code, record("Some", calls[:3], "Done.")) == 0.0

    def test_the_offline_model_uses_the_templates_without_a_call(self, server: ScriptedServer) -> None:
        generated = generate_scorer(
            description=EXAMPLE_DESCRIPTION, tools=TOOLS, provider=offline_config(), model="evalhub-offline"
        )

        assert generated.source == "template"
        assert server.received == []


class ModelTests:
    def test_it_sends_the_contract_the_tools_and_the_description(
        self, server: ScriptedServer, provider: ProviderConfig
    ) -> None:
        answer = "Here you go:\n```javascript\nasync ({ output }) => (output.allToolCalls.length > 0 ? 1 : 0)\n```\n"
        server.script(Answer(body=completion(content=answer)))

        generated = generate_scorer(
            description="Score 1 when any tool is called.", tools=TOOLS, provider=provider, model="gpt-4o"
        )

        assert generated.code == "async ({ output }) => (output.allToolCalls.length > 0 ? 1 : 0)\n"
        assert generated.source == "model"
        assert generated.note == "Generated by gpt-4o."
        [request] = server.received
        system, user = request.json["messages"]
        assert SCORER_TYPES in system["content"]
        assert "async ({ input, expected, output }) => number" in system["content"]
        assert EXAMPLE_SCORER in system["content"]
        assert "- get_weather: Get current weather for a location given latitude/longitude" in user["content"]
        assert '"required": ["latitude", "longitude"]' in user["content"]
        assert user["content"].endswith("Write the scorer for this description:\nScore 1 when any tool is called.")
        assert score(generated.code, weather_record(1, 2)) == 1.0

    def test_a_syntax_error_is_sent_back_once(self, server: ScriptedServer, provider: ProviderConfig) -> None:
        server.script(
            Answer(body=completion(content="async ({ output }) => {\n  return output.allToolCalls.length > ;\n}")),
            Answer(body=completion(content="```js\nasync ({ output }) => 1\n```")),
        )

        generated = generate_scorer(description="Always 1.", tools=TOOLS, provider=provider, model="gpt-4o")

        assert generated.code == "async ({ output }) => 1\n"
        assert generated.note.startswith("Generated by gpt-4o (its first answer did not compile and was corrected).")
        assert len(server.received) == 2
        retry = server.received[1].json["messages"]
        assert retry[-2]["role"] == "assistant"
        assert retry[-1]["content"].startswith(
            "That code cannot be used as a scorer:\nSyntax error at line 2, column 39: Unexpected token ';'"
        )

    def test_code_that_still_fails_is_returned_with_a_warning(
        self, server: ScriptedServer, provider: ProviderConfig
    ) -> None:
        server.script(Answer(body=completion(content="score = 1")), Answer(body=completion(content="1 +")))

        generated = generate_scorer(description="Always 1.", tools=TOOLS, provider=provider, model="gpt-4o")

        assert generated.code == "1 +\n"
        assert generated.note == (
            "Generated by gpt-4o, but it still cannot be used — fix it before saving. "
            "Syntax error at line 1, column 4: Unexpected end of input\n1 | 1 +\n  |    ^"
        )
        assert len(server.received) == 2

    def test_code_failing_on_a_run_without_tools_is_kept_with_a_note(
        self, server: ScriptedServer, provider: ProviderConfig
    ) -> None:
        server.script(Answer(body=completion(content="({ output }) => output.allToolCalls[0].args.latitude / 90")))

        generated = generate_scorer(description="Latitude over 90.", tools=TOOLS, provider=provider, model="gpt-4o")

        assert len(server.received) == 1
        assert "On a run that called no tool it fails: The scorer threw TypeError" in generated.note

    def test_a_provider_error_falls_back_to_a_template(self, server: ScriptedServer, provider: ProviderConfig) -> None:
        server.script(openai_error(401, "Incorrect API key provided"))

        generated = generate_scorer(description=EXAMPLE_DESCRIPTION, tools=TOOLS, provider=provider, model="gpt-4o")

        assert generated.source == "template"
        assert generated.note.startswith("The model call failed (the provider rejected the API key (401)), so this is")
        assert score(generated.code, weather_record(1, 2)) == 1.0

    def test_a_dripping_provider_falls_back_to_a_template_within_the_timeout(
        self, server: ScriptedServer, provider: ProviderConfig
    ) -> None:
        server.script(Answer(body=completion(content=EXAMPLE_SCORER), drip=0.05))
        started = time.monotonic()

        generated = generate_scorer(
            description=EXAMPLE_DESCRIPTION, tools=TOOLS, provider=replace(provider, timeout=1), model="gpt-4o"
        )

        assert time.monotonic() - started < 2.5
        assert generated.source == "template"
        assert generated.note.startswith(
            f"The model call failed ({server.base_url} started answering but had not finished within 1 s"
        )


class ExtractCodeTests:
    @pytest.mark.parametrize(
        ("answer", "code"),
        [
            ("() => 1", "() => 1\n"),
            ("```\n() => 1\n```", "() => 1\n"),
            ("```javascript\n() => 1\n```", "() => 1\n"),
            ("Sure!\n\n```js\n() => 1;\n```\nThis returns 1.", "() => 1;\n"),
            ("  \n() => 1\n\n", "() => 1\n"),
        ],
    )
    def test_it_strips_fences_and_prose(self, answer: str, code: str) -> None:
        assert extract_code(answer) == code
