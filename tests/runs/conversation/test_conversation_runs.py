"""Conversations end to end in this process: the real demo MCP server over stdio, with the offline model or the
scripted OpenAI-compatible endpoint playing the agent and the simulated user."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from evalhub.demo import BOOKING_FACTS, CONVERSATION_SCENARIO, seed_demo_scenarios, seed_demo_server
from evalhub.scenarios.models import Scenario
from runs import pipeline
from runs.models import Run
from runs.services import run_start
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call

FLIGHT_FACTS = {"origin": "London", "destination": "Paris", "date": "2026-12-18", "passengers": 2}
BOOKED = {"origin": "London", "destination": "Paris", "date": "2026-12-18", "passengers": 2}
ASK = "To call book_flight I need: origin, date, passengers. Please tell me."


def execute(**scenario: Any) -> Run:
    run = run_start(scenario=make_scenario(make_demo_server(), **scenario), user=None)
    pipeline.execute_run(run.pk, worker="test")
    return Run.objects.get(pk=run.pk)


def booking(**conversation: Any) -> dict[str, Any]:
    return {
        "name": "Book a flight",
        "prompt": "Book me a flight to Paris",
        "expected_tools": ["book_flight"],
        "expected": FLIGHT_FACTS,
        "conversation": conversation,
    }


def turns(run: Run) -> list[tuple[int, str, str, int]]:
    return [(t["index"], t["source"], t["text"], t["firstStep"]) for t in run.transcript["userTurns"]]


@pytest.mark.django_db(transaction=True)
class OfflineConversationTests:
    def test_a_scripted_follow_up_is_sent_after_the_agent_asks_and_the_agent_then_books(self) -> None:
        run = execute(**booking(turns=["origin: London; date: 2026-12-18; passengers: 2."]))

        assert (run.status, run.stop_reason) == ("done", "completed")
        assert turns(run) == [
            (0, "prompt", "Book me a flight to Paris", 0),
            (1, "scripted", "origin: London; date: 2026-12-18; passengers: 2.", 1),
        ]
        assert run.transcript["steps"][0]["text"] == ASK
        assert [(c["toolName"], c["args"], c["userTurn"]) for c in run.tool_calls] == [("book_flight", BOOKED, 1)]
        assert run.all_tool_calls[0]["userTurn"] == 1
        assert run.final_text.startswith("Here is what I found. book_flight returned booking_reference")
        assert run.transcript["finalText"] == run.final_text
        assert len(run.model_calls) == 3 and run.simulator_calls == []

    def test_the_simulated_user_answers_from_expected_and_the_goal_tool_ends_the_conversation(self) -> None:
        run = execute(**booking(simulate={"goal": "Book a flight to Paris", "goal_tool": "book_flight"}))

        assert (run.status, run.stop_reason, run.passed) == ("done", "completed", True)
        assert turns(run) == [
            (0, "prompt", "Book me a flight to Paris", 0),
            (1, "simulated", "origin: London; date: 2026-12-18; passengers: 2.", 1),
        ]
        assert [(c["toolName"], c["args"], c["userTurn"]) for c in run.tool_calls] == [("book_flight", BOOKED, 1)]
        # One simulator call (the answer); the goal tool's success ended the run without asking it again.
        assert [(c["userTurn"], c["model"], c["text"]) for c in run.simulator_calls] == [
            (1, "evalhub-offline", "origin: London; date: 2026-12-18; passengers: 2.")
        ]
        assert run.simulator_calls[0]["input_tokens"] > 0
        # The simulator's tokens are its own: the agent's totals are the sum of the agent's model calls.
        assert run.input_tokens == sum(call["input_tokens"] for call in run.model_calls)

    def test_without_a_goal_tool_the_simulated_user_says_done_when_nothing_is_asked(self) -> None:
        run = execute(**booking(simulate={"goal": "Book a flight to Paris"}))

        assert run.stop_reason == "user_done"
        assert [c["text"] for c in run.simulator_calls] == ["origin: London; date: 2026-12-18; passengers: 2.", "DONE"]
        assert len(run.transcript["userTurns"]) == 2 and len(run.tool_calls) == 1

    def test_max_user_turns_stops_a_simulated_user_with_more_to_say(self) -> None:
        # The facts lack nothing the agent asks, but the agent keeps asking: the weather tool needs coordinates.
        run = execute(
            prompt="What's the weather in Paris?",
            expected={"latitude": "unknown"},
            conversation={"simulate": {"goal": "Learn the weather in Paris", "max_user_turns": 2}},
        )

        assert run.stop_reason == "max_user_turns"
        assert [t["source"] for t in run.transcript["userTurns"]] == ["prompt", "simulated", "simulated"]
        assert len(run.simulator_calls) == 2 and run.tool_calls == []

    def test_max_turns_counts_model_calls_over_the_whole_conversation(self) -> None:
        run = execute(**booking(turns=["origin: London; date: 2026-12-18; passengers: 2."]), max_turns=2)

        assert run.stop_reason == "max_turns"
        assert len(run.model_calls) == 2 and len(run.tool_calls) == 1

    def test_a_token_budget_reached_by_the_first_turn_stops_before_the_follow_up(self) -> None:
        run = execute(**booking(turns=["origin: London; date: 2026-12-18; passengers: 2."]), token_budget=10)

        assert run.stop_reason == "token_budget"
        assert len(run.transcript["userTurns"]) == 1 and run.tool_calls == []


@pytest.mark.django_db(transaction=True)
class ScriptedEndpointConversationTests:
    def test_each_follow_up_is_sent_with_the_whole_conversation_so_far(self, scripted: ScriptedServer) -> None:
        book = tool_call(
            "c1", "book_flight", '{"origin": "LHR", "destination": "CDG", "date": "2026-12-18", "passengers": 2}'
        )
        scripted.script(
            Answer(body=completion(content="Where from, when, and for how many?")),
            Answer(body=completion(content=None, tool_calls=[book])),
            Answer(body=completion(content="Booked.")),
            Answer(body=completion(content="You're welcome.")),
        )
        provider = make_scripted_provider(scripted.base_url)
        run = execute(
            **booking(turns=["From London on 2026-12-18, two of us.", "Thanks!"]),
            provider=provider,
            model=provider.model_names[0],
        )

        assert (run.stop_reason, run.final_text) == ("completed", "You're welcome.")
        assert [(t["source"], t["firstStep"]) for t in run.transcript["userTurns"]] == [
            ("prompt", 0),
            ("scripted", 1),
            ("scripted", 3),
        ]
        last = scripted.received[-1].json["messages"]
        assert [(m["role"], m.get("content")) for m in last if m["role"] in ("user", "assistant")] == [
            ("user", "Book me a flight to Paris"),
            ("assistant", "Where from, when, and for how many?"),
            ("user", "From London on 2026-12-18, two of us."),
            ("assistant", None),
            ("assistant", "Booked."),
            ("user", "Thanks!"),
        ]
        assert [c["userTurn"] for c in run.tool_calls] == [1]

    def test_a_simulator_on_the_endpoint_is_sent_the_swapped_conversation_and_its_done_is_read(
        self, scripted: ScriptedServer
    ) -> None:
        scripted.script(
            Answer(body=completion(content="Where from?")),  # the agent
            Answer(body=completion(content="From London.", prompt_tokens=50, completion_tokens=5)),  # simulator
            Answer(body=completion(content="Which date?")),  # the agent
            Answer(body=completion(content="Thanks, that's all.\nDONE", prompt_tokens=70, completion_tokens=7)),
        )
        provider = make_scripted_provider(scripted.base_url)
        run = execute(
            **booking(simulate={"goal": "Book a flight", "persona": "terse traveller", "model": "gpt-4o-mini"}),
            provider=provider,
            model=provider.model_names[0],
        )

        assert run.stop_reason == "user_done"
        simulator_request = scripted.received[1].json
        assert simulator_request["model"] == "gpt-4o-mini" and "tools" not in simulator_request
        system = simulator_request["messages"][0]["content"]
        assert "Your goal: Book a flight" in system and "Your persona: terse traveller" in system
        assert '"origin": "London"' in system
        assert [(m["role"], m["content"]) for m in simulator_request["messages"][1:]] == [
            ("assistant", "Book me a flight to Paris"),
            ("user", "Where from?"),
        ]
        assert [(c["input_tokens"], c["output_tokens"]) for c in run.simulator_calls] == [(50, 5), (70, 7)]
        assert run.input_tokens == 2400  # the agent's two calls only


@pytest.mark.django_db(transaction=True)
class DemoConversationTests:
    def test_the_seeded_demo_conversation_passes_with_the_offline_model(self, alice_client: Client) -> None:
        seed_demo_server()
        seed_demo_scenarios()
        scenario = Scenario.objects.get(name=CONVERSATION_SCENARIO)

        run = run_start(scenario=scenario, user=None)
        pipeline.execute_run(run.pk, worker="test")
        run = Run.objects.get(pk=run.pk)

        assert (run.status, run.stop_reason, run.passed, run.score) == ("done", "completed", True, 1.0)
        assert [t["source"] for t in run.transcript["userTurns"]] == ["prompt", "simulated"]
        assert [(c["toolName"], c["args"]) for c in run.tool_calls] == [("book_flight", BOOKING_FACTS)]
        checklist = run.score_results.get(scorer_kind="expectations").details
        # Labels only: PostgreSQL's jsonb does not keep the order of the expected arguments' keys.
        assert [item["label"].split(" with ")[0] for item in checklist["outcomes"]] == [
            "turn 0: book_flight not called",
            "turn 1: book_flight called",
            'turn 1: final answer contains "booking_reference"',
            "no tool call returned an error",
        ]
        assert (checklist["passed"], checklist["total"]) == (4, 4)
        page = alice_client.get(f"/runs/{run.pk}/").content.decode()
        assert 'turn 1</span> <span class="badge badge-warn" title="Written by the simulated user model' in page
        assert "origin: London; date: 2026-12-18; passengers: 2." in page
        used = run.simulator_calls[0]
        assert (
            f"Simulated user (not in the totals above): 1 call, {used['input_tokens']} / {used['output_tokens']} tokens"
            in page
        )


@pytest.mark.django_db(transaction=True)
class BrokenConversationSettingTests:
    def test_an_invalid_setting_saved_around_the_form_ends_the_run_with_what_is_wrong(self) -> None:
        run = execute(**booking(simulate={"persona": "no goal"}))

        assert (run.status, run.stop_reason) == ("error", "error")
        assert run.error == {
            "step": "connect",
            "kind": "invalid_conversation",
            "message": "The scenario's conversation is invalid: conversation.simulate.goal: required, a sentence "
            "saying what the simulated user wants done.",
        }

    def test_a_deleted_simulator_provider_ends_the_run_before_it_starts(self) -> None:
        run = execute(**booking(simulate={"goal": "Book", "provider_id": 99999}))

        assert run.error is not None and run.error["message"] == (
            "The simulated user's provider was deleted before the run started."
        )
        assert run.model_calls == []
