"""One malformed tool no longer makes a whole server unusable (issue 18, findings 4 and 16).

The server is a real stdio process built on the MCP SDK's low-level server (fixtures/malformed_tools_server.py):
`get_weather` is valid; `lookup`'s inputSchema is the string "none", `shout`'s schema has type "string" and the
fourth tool's name is the number 42. Before, tools/list failed as "not valid MCP" without naming any of them.
"""

from __future__ import annotations

import pytest

from evalhub.mcp_client import ErrorKind, McpConnectionError, connect_sync, inspect_server, quality_report

from .helpers import fixture_config

SERVER = "malformed_tools_server.py"
INVALID = [
    {
        "name": "lookup",
        "position": 2,
        "reason": "inputSchema: Input should be a valid dictionary or instance of InputSchema",
    },
    {"name": "shout", "position": 3, "reason": "inputSchema.type: Input should be 'object'"},
    {"name": None, "position": 4, "reason": "name: Input should be a valid string"},
]


class MalformedToolTests:
    def test_the_valid_tools_are_kept_and_the_invalid_ones_named_with_the_reason(self) -> None:
        inspection = inspect_server(fixture_config(SERVER))

        assert [tool["name"] for tool in inspection.tools] == ["get_weather"]
        assert inspection.invalid_tools == INVALID

    def test_the_quality_report_lists_each_invalid_tool(self) -> None:
        inspection = inspect_server(fixture_config(SERVER))

        report = quality_report(inspection.tools, inspection.invalid_tools)

        invalid = [(f.tool, f.severity, f.message) for f in report.findings if f.code == "invalid_tool"]
        assert invalid == [
            (
                "#4",
                "error",
                "Not valid MCP, so it was left out and models are not offered it (name: Input should be a valid "
                "string); fix the tool's definition on the server.",
            ),
            (
                "lookup",
                "error",
                "Not valid MCP, so it was left out and models are not offered it (inputSchema: Input should be a "
                "valid dictionary or instance of InputSchema); fix the tool's definition on the server.",
            ),
            (
                "shout",
                "error",
                "Not valid MCP, so it was left out and models are not offered it (inputSchema.type: Input should be "
                "'object'); fix the tool's definition on the server.",
            ),
        ]
        assert report.tool_count == 1

    def test_the_valid_tool_can_be_called_over_the_same_connection(self) -> None:
        with connect_sync(fixture_config(SERVER)) as conn:
            tools = conn.list_tools()
            result = conn.call_tool("get_weather", {"latitude": 48.85, "longitude": 2.35})
            listed_again = conn.list_tools()
            invalid_names = [tool.label for tool in conn.invalid_tools]

        assert [tool["name"] for tool in tools] == [tool["name"] for tool in listed_again] == ["get_weather"]
        assert result["content"] == [{"type": "text", "text": "get_weather: 18 °C and sunny"}]
        assert invalid_names == ["lookup", "shout", "#4"]  # counted once per listing, not once per call

    def test_a_listing_broken_beyond_its_tools_still_fails_and_says_where(self) -> None:
        # A page whose own fields are wrong cannot be repaired by leaving tools out: the error names the field.
        with pytest.raises(McpConnectionError) as caught:
            inspect_server(fixture_config(SERVER, "--bad-cursor"))

        assert caught.value.kind == ErrorKind.PROTOCOL_ERROR
        assert caught.value.message == (
            "The server's answer to tools/list is not valid MCP (nextCursor: Input should be a valid string)."
        )
