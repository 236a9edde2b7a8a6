"""The Django-free parts of conversations: the setting's validation, the simulated user's prompt and DONE, and the
offline model playing both sides deterministically."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from evalhub.model_client.offline import handle_chat_completion
from runs.conversation.simulator import Exchange, is_done, simulator_messages, simulator_totals
from runs.conversation.spec import Conversation, Simulation, parse_conversation, validate_conversation

FACTS = {"origin": "London", "destination": "Paris", "date": "2026-12-18", "passengers": 2}
BOOK_FLIGHT = {
    "type": "function",
    "function": {
        "name": "book_flight",
        "description": "Book the cheapest flight from origin to destination on a date.",
        "parameters": {
            "type": "object",
            "properties": {
                "origin": {"type": "string", "minLength": 2},
                "destination": {"type": "string", "minLength": 2},
                "date": {"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}$"},
                "passengers": {"type": "integer", "minimum": 1, "maximum": 9},
            },
            "required": ["origin", "destination", "date", "passengers"],
        },
    },
}
ASK = "To call book_flight I need: origin, date, passengers. Please tell me."


def offline(messages: list[dict[str, Any]], **request: Any) -> dict[str, Any]:
    response = handle_chat_completion({"model": "evalhub-offline", "messages": messages, **request})
    message: dict[str, Any] = response["choices"][0]["message"]
    return message


class ConversationSpecTests:
    def test_empty_means_one_prompt(self) -> None:
        assert validate_conversation({}) == validate_conversation(None) == []
        assert parse_conversation({}).is_single_prompt

    def test_scripted_and_simulated_parse_with_defaults(self) -> None:
        assert parse_conversation({"turns": ["a", "b"]}) == Conversation(scripted=("a", "b"))
        assert parse_conversation({"simulate": {"goal": " Book "}}) == Conversation(simulation=Simulation(goal="Book"))

    @pytest.mark.parametrize(
        ("value", "errors"),
        [
            ([], ['conversation: expected an object such as {"turns": [...]} or {"simulate": {...}}.']),
            (
                {"turn": []},
                ['conversation: unknown key \'turn\'; use "turns" (scripted) or "simulate" (a simulated user).'],
            ),
            ({"turns": []}, ["conversation.turns: expected a non-empty list of follow-up messages (strings)."]),
            ({"turns": ["x"] * 51}, ["conversation.turns: at most 50 follow-up messages, got 51."]),
            ({"simulate": "book"}, ['conversation.simulate: expected an object with at least a "goal".']),
            (
                {"simulate": {"goal": "x", "persona": 3, "provider_id": True, "max_user_turns": 51}},
                [
                    "conversation.simulate.persona: expected a string.",
                    "conversation.simulate.provider_id: expected a provider's id (a positive integer) or null.",
                    "conversation.simulate.max_user_turns: expected an integer from 1 to 50, got 51.",
                ],
            ),
        ],
    )
    def test_errors_say_where_and_what_to_do(self, value: Any, errors: list[str]) -> None:
        assert validate_conversation(value) == errors
        with pytest.raises(ValueError):
            parse_conversation(value)


class SimulatorTests:
    def test_the_simulator_sees_its_goal_persona_facts_and_the_conversation_with_roles_swapped(self) -> None:
        simulation = Simulation(goal="Book a flight", persona="terse")
        messages = simulator_messages(simulation, FACTS, [Exchange("Book me a flight to Paris", ASK)])

        system = messages[0]["content"]
        assert system.startswith("You are playing the user in a conversation with an AI assistant.")
        assert "Your goal: Book a flight\nYour persona: terse\n" in system
        assert (
            'Facts you know (JSON): {"origin": "London", "destination": "Paris", "date": "2026-12-18", "passengers": 2}'
            in system
        )
        assert "reply with exactly DONE" in system
        assert messages[1:] == [
            {"role": "assistant", "content": "Book me a flight to Paris"},
            {"role": "user", "content": ASK},
        ]

    @pytest.mark.parametrize(
        ("reply", "done"),
        [("DONE", True), (" done. ", True), ("Thanks, bye!\nDONE", True), ("", True), ("I'm done with Paris", False)],
    )
    def test_done_is_the_sentinel_alone_on_the_last_line(self, reply: str, done: bool) -> None:
        assert is_done(reply) is done

    def test_totals_keep_an_unknown_price_unknown(self) -> None:
        known = [{"input_tokens": 10, "output_tokens": 2, "cost_usd": "0.001"}] * 2
        assert simulator_totals(known) == {
            "calls": 2,
            "input_tokens": 20,
            "output_tokens": 4,
            "cost_usd": Decimal("0.002"),
        }
        assert simulator_totals([*known, {"input_tokens": 1, "output_tokens": 1, "cost_usd": None}])["cost_usd"] is None


class OfflineConversationRuleTests:
    def simulate(self, agent_said: str, facts: Any = FACTS) -> str:
        messages = simulator_messages(
            Simulation(goal="Book"), facts, [Exchange("Book me a flight to Paris", agent_said)]
        )
        return str(offline(messages)["content"])

    def test_the_offline_simulated_user_gives_the_facts_asked_for_by_name(self) -> None:
        assert self.simulate(ASK) == "origin: London; date: 2026-12-18; passengers: 2."
        assert self.simulate("Which departure date would you like?", {"departure_date": "2026-12-18"}) == (
            "departure_date: 2026-12-18."
        )

    def test_it_says_done_when_nothing_it_knows_is_asked(self) -> None:
        assert self.simulate("Booked: origin LHR, destination CDG, 2 passengers.") == "DONE"
        assert self.simulate("What's your budget?") == "DONE"

    def test_the_offline_agent_reads_an_answer_to_its_question_with_the_request_it_asked_about(self) -> None:
        conversation = [
            {"role": "user", "content": "Book me a flight to Paris"},
            {"role": "assistant", "content": ASK},
            {"role": "user", "content": "origin: London; date: 2026-12-18; passengers: 2."},
        ]

        message = offline(conversation, tools=[BOOK_FLIGHT])

        assert message["tool_calls"][0]["function"]["name"] == "book_flight"
        assert message["tool_calls"][0]["function"]["arguments"] == (
            '{"origin": "London", "destination": "Paris", "date": "2026-12-18", "passengers": 2}'
        )

    def test_a_message_that_answers_no_question_is_read_alone(self) -> None:
        conversation = [
            {"role": "user", "content": "Book me a flight to Paris"},
            {"role": "assistant", "content": "Sure."},
            {"role": "user", "content": "origin: London; date: 2026-12-18; passengers: 2."},
        ]

        message = offline(conversation, tools=[BOOK_FLIGHT])
        assert message.get("tool_calls") is None
        assert message["content"] == "To call book_flight I need: destination. Please tell me."
