"""Who failed each recorded tool call (runs.run_verdict.tool_call_facts), table-tested on records as the agent loop
writes them: a call EvalHub answered itself (`refused`) is the agent's even when its name is one of the server's."""

from __future__ import annotations

from typing import Any

import pytest

from runs.run_verdict import tool_call_facts
from runs.verdict import Check, RunFacts, ToolCallFact, decide

WEATHER = {"name": "get_weather", "inputSchema": {"type": "object", "required": ["latitude"]}}
BOOK = {"name": "book_flight", "inputSchema": {"type": "object"}}
LISTED = {"get_weather": WEATHER, "book_flight": BOOK}


def record(name: str, *, error: bool = True, args: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"toolName": name, "args": {"latitude": 1} if args is None else args, "isError": error, **extra}


class WhoFailedTests:
    @pytest.mark.parametrize(
        ("call", "tools", "failed_by"),
        [
            # A tool a variant hid, or a renamed tool's old name: one of the server's names, never sent to it.
            (record("book_flight", refused="unknown_tool"), LISTED, "agent"),
            (record("get_weather", refused="unknown_tool"), None, "agent"),
            (record("get_weather", args={}, refused="invalid_arguments", rawArguments="{'x'"), LISTED, "agent"),
            # A run_code program whose arguments were not JSON never ran: the agent's, not skipped as EvalHub's.
            (record("run_code", args={}, refused="invalid_arguments", rawArguments="{"), LISTED, "agent"),
            (record("get_weather"), LISTED, "server"),
            (record("get_weather", error=False), LISTED, None),
            (record("run_code"), LISTED, "skipped"),
            (record("get_weather", injectedFault={"name": "drop"}), LISTED, "fault"),
            # Records from before the marker mean what they meant: a name the server never listed, `rawArguments`
            # or arguments that break the input schema are the agent's; a listed name with valid arguments the
            # server's (the server-side tool error that could not be told apart then).
            (record("delete_everything"), LISTED, "agent"),
            (record("get_weather", args={}, rawArguments="{"), None, "agent"),
            (record("get_weather", args={}), LISTED, "agent"),
            (record("book_flight"), LISTED, "server"),
            (record("delete_everything"), None, "server"),
        ],
    )
    def test_failed_by(self, call: dict[str, Any], tools: dict[str, Any] | None, failed_by: str | None) -> None:
        facts = tool_call_facts([call], tools)
        if failed_by == "skipped":
            assert facts == []
        else:
            assert facts == [ToolCallFact(tool=call["toolName"], failed_by=failed_by)]

    def test_a_refused_call_to_a_hidden_tool_fails_the_run_as_the_agents_not_the_servers(self) -> None:
        hidden = record("book_flight", refused="unknown_tool")
        calls = tool_call_facts([record("get_weather", error=False), hidden], LISTED)
        gate = Check("Default scorer", "default", False, True, "1 of 2 tool calls returned an error")

        decision = decide(RunFacts(status="done", checks=(gate,), score=0.5, calls=tuple(calls)))

        assert (decision.verdict, decision.cause, decision.stage) == ("fail", "agent", "tool called")
        assert decision.reason == "agent: 1 call(s) refused (book_flight); 1 of 2 tool calls returned an error"
