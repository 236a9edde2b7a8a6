"""runs.cassettes.fork: a fork's change, how it rewrites a model request, and where the fork goes live. Pure."""

from __future__ import annotations

from typing import Any

import pytest

from runs.cassettes.fork import Boundary, boundary, changed_request, parse_change

REQUEST: dict[str, Any] = {
    "model": "gpt-4o",
    "messages": [{"role": "system", "content": "Be terse."}, {"role": "user", "content": "Weather?"}],
    "tools": [
        {"type": "function", "function": {"name": "get_weather", "description": "Weather.", "parameters": {}}},
        {"type": "function", "function": {"name": "search", "parameters": {}}},
    ],
}


class ParseChangeTests:
    @pytest.mark.parametrize(
        ("data", "problem"),
        [
            ([], "change: send an object"),
            ({"kind": "nope"}, "change.kind: 'nope' is not one of"),
            ({"kind": "model", "model": "x", "extra": 1}, "change.extra: not a field of a model change"),
            ({"kind": "tool_result", "result": {"content": "text"}}, "change.result: an MCP tool result"),
            ({"kind": "tool_result", "call": -1, "result": {"content": []}}, "change.call"),
            ({"kind": "tool", "tool": "t"}, "needs a description, an input_schema, or both"),
            ({"kind": "tool", "tool": "t", "input_schema": {"type": "array"}}, "change.input_schema: a JSON Schema"),
            ({"kind": "system_prompt"}, "change.system_prompt"),
            ({"kind": "model", "model": " "}, "change.model"),
        ],
    )
    def test_bad_changes_name_the_field(self, data: Any, problem: str) -> None:
        with pytest.raises(ValueError, match=problem.replace("(", r"\(").replace(".", r"\.")):
            parse_change(data)

    def test_a_change_round_trips_through_its_dict(self) -> None:
        data = {"kind": "tool", "tool": "search", "description": "Find things."}
        assert parse_change(data).to_dict() == data


class ChangedRequestTests:
    def test_another_model(self) -> None:
        assert changed_request(REQUEST, parse_change({"kind": "model", "model": "o3"}))["model"] == "o3"

    def test_a_system_prompt_replaces_the_old_one_or_removes_it(self) -> None:
        new = changed_request(REQUEST, parse_change({"kind": "system_prompt", "system_prompt": "Be kind."}))
        assert new["messages"] == [{"role": "system", "content": "Be kind."}, REQUEST["messages"][1]]
        gone = changed_request(REQUEST, parse_change({"kind": "system_prompt", "system_prompt": ""}))
        assert gone["messages"] == [REQUEST["messages"][1]]

    def test_a_tool_change_touches_that_tool_only(self) -> None:
        schema = {"type": "object", "properties": {"city": {"type": "string"}}}
        change = parse_change({"kind": "tool", "tool": "get_weather", "input_schema": schema})

        tools = changed_request(REQUEST, change)["tools"]

        assert tools[0]["function"] == {"name": "get_weather", "description": "Weather.", "parameters": schema}
        assert tools[1] == REQUEST["tools"][1] and REQUEST["tools"][0]["function"]["parameters"] == {}


class BoundaryTests:
    # tools/list before any model call, two tool calls after model call 1, one after model call 2; 3 model calls.
    TURNS = [0, 1, 1, 2]

    def test_a_prompt_change_at_step_2_replays_step_1_and_its_calls(self) -> None:
        change = parse_change({"kind": "system_prompt", "system_prompt": "x"})
        assert boundary(at_step=2, change=change, model_calls=3, mcp_turns=self.TURNS) == Boundary(1, 3)

    def test_a_replaced_result_goes_live_after_the_replaced_call(self) -> None:
        change = parse_change({"kind": "tool_result", "call": 1, "result": {"content": []}})
        assert boundary(at_step=1, change=change, model_calls=3, mcp_turns=self.TURNS) == Boundary(1, 2, replace=2)

    def test_a_step_past_the_run_is_refused(self) -> None:
        with pytest.raises(ValueError, match="at_step: the run made 3 model call"):
            boundary(at_step=4, change=parse_change({"kind": "model", "model": "m"}), model_calls=3, mcp_turns=[])
