"""`turn` on a conversation's record as the recorder writes it: `userTurns` with `firstStep` in the transcript
(steps carry no turn of their own) and `userTurn` on each tool call; turn 0 is the scenario's prompt."""

from __future__ import annotations

from typing import Any

from tests.scorers.expectations.helpers import check, diff
from tests.scorers.expectations.records import call, record, result

ASK = "To call book_flight I need: origin, date, passengers. Please tell me."
BOOKED = "Here is what I found. book_flight returned booking_reference K7Q2ZP."
ARGS = {"origin": "London", "destination": "Paris", "date": "2026-12-18", "passengers": 2}


def conversation(*, with_call_turns: bool = True) -> dict[str, Any]:
    booking = call(
        "book_flight", ARGS, result('{"booking_reference": "K7Q2ZP"}'), user_turn=1 if with_call_turns else None
    )
    steps = [
        {"text": ASK, "finishReason": "stop"},
        {
            "text": "",
            "finishReason": "tool_calls",
            "toolCalls": [{"toolName": "book_flight", "args": ARGS}],
            "toolResults": [{"toolName": "book_flight", "result": booking["result"]}],
        },
        {"text": BOOKED, "finishReason": "stop"},
    ]
    scored = record([booking], BOOKED, steps=steps, prompt="Book me a flight to Paris")
    scored["output"]["transcript"]["userTurns"] = [
        {"index": 0, "source": "prompt", "text": "Book me a flight to Paris", "firstStep": 0},
        {"index": 1, "source": "simulated", "text": "origin: London; date: 2026-12-18; passengers: 2.", "firstStep": 1},
    ]
    return scored


class ConversationTurnTests:
    def test_the_prompts_turn_has_no_booking_and_the_answers_turn_has_it(self) -> None:
        run = conversation()

        assert check({"kind": "tool_not_called", "tool": "book_flight", "turn": 0}, run).passed
        assert check({"kind": "tool_called", "tool": "book_flight", "args": ARGS, "turn": 1}, run).passed
        outcome = check({"kind": "tool_called", "tool": "book_flight", "turn": 0}, run)
        assert not outcome.passed
        assert diff(outcome) == [("missing_call", "book_flight was never called in turn 0", None)]

    def test_each_turns_answer_is_its_last_text(self) -> None:
        run = conversation()

        assert check({"kind": "final_answer", "contains": "I need: origin", "turn": 0}, run).passed
        assert check({"kind": "final_answer", "contains": "K7Q2ZP", "turn": 1}, run).passed
        assert not check({"kind": "final_answer", "contains": "K7Q2ZP", "turn": 0}, run).passed

    def test_calls_without_their_own_turn_take_it_from_the_steps_first_step_ranges(self) -> None:
        run = conversation(with_call_turns=False)

        assert check({"kind": "tool_called", "tool": "book_flight", "turn": 1}, run).passed
        assert check({"kind": "tool_not_called", "tool": "book_flight", "turn": 0}, run).passed

    def test_a_turn_the_conversation_never_reached_has_no_calls_and_no_answer(self) -> None:
        run = conversation()

        assert not check({"kind": "tool_called", "tool": "book_flight", "turn": 2}, run).passed
        assert check({"kind": "final_answer", "contains": "K7Q2ZP", "turn": 2}, run).actual == "no answer"
