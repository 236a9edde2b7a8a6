"""Evals a server ships (the evals/list proposal): discovered on real servers over stdio and HTTP.

Two independent servers: the bundled demo (MCPServer + middleware) and fixtures/evals_server.py (the SDK's
low-level server with `add_request_handler`), each in its own process.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from evalhub.demo_server.evals import EVALS, PARIS_WEATHER_CONTENT
from evalhub.mcp_client import ErrorKind, McpConnectionError, ServerConfig, connect, inspect_server
from evalhub.mcp_client.server_evals import LIST_CHANGED

from .helpers import demo_stdio_config, fixture_config

SERVER = "evals_server.py"
FIRST_IDS = ["add-invocation", "add-execution", "add-judge", "add-invocation-judge", "sum-scenario"]
DEMO_IDS = [item["id"] for item in EVALS]


def ids(evals: list[dict[str, Any]]) -> list[str]:
    return [item["id"] for item in evals]


class DemoServerEvalsTests:
    def test_the_demo_announces_and_ships_one_eval_of_each_valid_pair(self) -> None:
        inspection = inspect_server(demo_stdio_config())

        assert inspection.capabilities["evals"] == {"listChanged": False}
        assert ids(inspection.evals) == DEMO_IDS
        pairs = {(item["input"]["type"], item["gradingType"]) for item in inspection.evals}
        assert pairs == {
            ("invocation", "exact-match"),
            ("invocation", "llm-as-judge"),
            ("execution", "exact-match"),
            ("execution", "llm-as-judge"),
            ("scenario", "llm-as-judge"),
        }
        assert inspection.invalid_evals == [] and inspection.evals_error is None

    @pytest.mark.parametrize("mode", ["auto", "legacy"])
    def test_over_http_in_either_protocol_era_it_is_the_same_list(self, demo_http_url: str, mode: str) -> None:
        config = ServerConfig(transport="http", url=demo_http_url, protocol_mode=mode, connect_timeout=10.0)

        inspection = inspect_server(config)

        assert inspection.capabilities["evals"] == {"listChanged": False}
        assert inspection.evals == EVALS

    def test_its_execution_exact_match_fixture_is_what_the_tool_answers(self) -> None:
        async def check() -> None:
            async with connect(demo_stdio_config()) as conn:
                result = await conn.call_tool("get_weather", {"latitude": 49.01, "longitude": 2.55})
                assert result["content"] == PARIS_WEATHER_CONTENT

        anyio.run(check)


class ListingTests:
    def test_every_page_is_read(self) -> None:
        # Two evals a page: three pages.
        assert ids(inspect_server(fixture_config(SERVER)).evals) == FIRST_IDS
        assert ids(inspect_server(fixture_config(SERVER, "--page-size", "1")).evals) == FIRST_IDS

    def test_the_level_filter_is_applied_by_the_server(self) -> None:
        async def listed(level: str) -> list[str]:
            async with connect(fixture_config(SERVER)) as conn:
                return ids((await conn.list_evals(level))["evals"])

        assert anyio.run(listed, "invocation") == ["add-invocation", "add-invocation-judge"]
        assert anyio.run(listed, "execution") == ["add-execution", "add-judge"]
        assert anyio.run(listed, "scenario") == ["sum-scenario"]

    def test_invalid_evals_are_left_out_with_their_reason(self) -> None:
        inspection = inspect_server(fixture_config(SERVER, "--invalid"))

        assert ids(inspection.evals) == FIRST_IDS
        assert inspection.invalid_evals == [
            {
                "id": "exact-scenario",
                "position": 6,
                "reason": "a scenario eval cannot be graded by exact-match: multi-turn agent trajectories are "
                "non-deterministic (the proposal requires llm-as-judge)",
            },
            {"id": "no-rubric", "position": 7, "reason": "'expected.rubric' must be a non-empty string"},
            {"id": "add-execution", "position": 8, "reason": "its id repeats the eval at position 2"},
            {"id": None, "position": 9, "reason": "it is not an object"},
        ]

    def test_a_server_without_the_capability_is_not_asked(self) -> None:
        inspection = inspect_server(fixture_config(SERVER, "--no-capability"))

        assert "evals" not in inspection.capabilities
        assert inspection.evals == [] and inspection.evals_error is None

    def test_a_list_changed_notification_is_seen_and_the_new_list_read(self) -> None:
        async def check() -> None:
            async with connect(fixture_config(SERVER)) as conn:
                assert not conn.saw_notification(LIST_CHANGED)
                await conn.call_tool("replace_evals", {})
                assert conn.saw_notification(LIST_CHANGED)
                assert ids((await conn.list_evals())["evals"]) == [
                    "add-invocation",
                    "add-execution",
                    "add-invocation-judge",
                    "sum-scenario",
                    "add-negative",
                ]

        anyio.run(check)


class BrokenListingTests:
    @pytest.mark.parametrize(
        ("flag", "message"),
        [
            ("--loop", "The server's evals/list repeated a page cursor, so it would never end."),
            ("--broken-page", "The server's evals/list answer is invalid: 'evals' must be a list."),
            (
                "--fail",
                "The server answered evals/list with an error: The eval store is down. (JSON-RPC error -32603).",
            ),
        ],
    )
    def test_the_inspection_still_succeeds_and_says_why_there_are_no_evals(self, flag: str, message: str) -> None:
        inspection = inspect_server(fixture_config(SERVER, flag))

        assert [tool["name"] for tool in inspection.tools] == ["add", "replace_evals"]
        assert inspection.evals == []
        assert inspection.evals_error == message

    def test_listing_directly_raises_the_protocol_error(self) -> None:
        async def listed() -> None:
            async with connect(fixture_config(SERVER, "--loop")) as conn:
                await conn.list_evals()

        with pytest.raises(McpConnectionError) as caught:
            anyio.run(listed)
        assert caught.value.kind == ErrorKind.PROTOCOL_ERROR
