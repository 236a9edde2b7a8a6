"""runs.cassettes.tape: what a cassette keeps, in what form, and how it reads back. Pure: no database."""

from __future__ import annotations

from typing import Any

from evalhub.mcp_client.redact import Redactor
from runs.cassettes.tape import MCP, MODEL, RESPONSE_BYTES, Tape, compress, expand


def request(*messages: str, **fields: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": text} for text in messages], **fields}


class CompressTests:
    def test_a_request_keeps_only_what_is_new_since_the_previous_one(self) -> None:
        first = request("a", "b", tools=[{"name": "t"}])
        second = request("a", "b", "c", tools=[{"name": "t"}])

        stored = compress(second, first)

        assert stored == {"messages": [{"role": "user", "content": "c"}], "messagesKept": 2, "same": ["model", "tools"]}
        assert expand(stored, first) == second

    def test_a_changed_head_keeps_the_messages_from_where_they_differ(self) -> None:
        first, second = request("a", "b"), request("x", "b")

        stored = compress(second, first)

        assert stored["messagesKept"] == 0 and expand(stored, first) == second

    def test_a_field_that_changed_is_stored_whole(self) -> None:
        first, second = request("a", model="m"), request("a", model="n")

        assert compress(second, first)["model"] == "n"
        assert expand(compress(second, first), first) == second


class TapeTests:
    def test_secrets_are_masked_in_requests_and_answers(self) -> None:
        tape = Tape(Redactor(["sk-123"]))

        tape.add(MODEL, request("my key is sk-123"), response={"text": "sk-123 noted"})

        (exchange,) = tape.exchanges[MODEL]
        assert exchange.request["messages"][0]["content"] == "my key is [redacted]"
        assert exchange.response == {"text": "[redacted] noted"}

    def test_it_reads_back_what_it_wrote(self) -> None:
        tape = Tape()
        tape.add(MODEL, request("a"), response={"text": "1"}, ms=12.4)
        tape.add(
            MCP, {"method": "tools/call", "params": {"name": "t"}}, error={"kind": "server_crashed", "message": "x"}
        )
        tape.add(MODEL, request("a", "b"), response={"text": "2"})

        back = Tape.from_json(tape.to_json())

        assert back.exchanges == tape.exchanges and back.size == tape.size
        assert back.exchanges[MCP][0].turn == 1 and back.exchanges[MODEL][0].ms == 12

    def test_an_answer_over_its_cap_is_kept_cut_and_marked(self) -> None:
        tape = Tape()

        tape.add(MCP, {"method": "tools/call", "params": {}}, response={"result": "x" * (RESPONSE_BYTES + 10)})

        (exchange,) = tape.exchanges[MCP]
        assert exchange.cut and "…truncated" in exchange.response["result"]  # type: ignore[index]

    def test_past_its_limit_it_stops_recording_and_says_so(self) -> None:
        tape = Tape(limit=400)

        for index in range(20):
            tape.add(MODEL, request(f"message {index}" * 5), response={"text": "ok"})

        assert tape.truncated and 0 < len(tape.exchanges[MODEL]) < 20 and tape.size <= 400
        assert Tape.from_json(tape.to_json()).truncated
