"""Static quality findings for tool lists."""

from __future__ import annotations

from typing import Any

from evalhub.mcp_client import quality_report

GOOD_SCHEMA = {"type": "object", "properties": {"city": {"type": "string", "description": "City name."}}}


def tool(
    name: str, description: str | None = "Look up the forecast for a city by name.", **extra: Any
) -> dict[str, Any]:
    return {
        "name": name,
        "title": None,
        "description": description,
        "inputSchema": GOOD_SCHEMA,
        "outputSchema": None,
        "annotations": None,
        **extra,
    }


def codes(tools: list[dict[str, Any]]) -> list[tuple[str, str | None, str]]:
    return [(f.code, f.tool, f.severity) for f in quality_report(tools).findings]


class QualityReportTests:
    def test_a_clean_tool_has_no_findings(self) -> None:
        assert codes([tool("get_forecast"), tool("searchFlights"), tool("github.create-issue")]) == []

    def test_it_flags_missing_and_short_descriptions(self) -> None:
        assert codes([tool("get_forecast", description=None), tool("list_cities", description="Lists.")]) == [
            ("no_description", "get_forecast", "error"),
            ("short_description", "list_cities", "warning"),
        ]

    def test_it_flags_invalid_input_schemas(self) -> None:
        report = quality_report(
            [
                tool("bad_type", inputSchema={"type": "object", "properties": {"x": {"type": "strin"}}}),
                tool("not_object", inputSchema={"type": "string"}),
            ]
        )

        messages = {f.tool: f.message for f in report.findings if f.code == "invalid_schema"}
        assert messages["bad_type"].startswith("inputSchema is not valid JSON Schema at properties/x/type:")
        assert messages["not_object"] == 'inputSchema must have "type": "object" in MCP.'

    def test_it_flags_duplicate_and_unclear_names(self) -> None:
        found = codes([tool("x"), tool("run"), tool("get_User-info"), tool("fetch_page"), tool("fetch_page")])

        assert ("duplicate_name", "fetch_page", "error") in found
        assert ("unclear_name", "x", "warning") in found
        assert ("unclear_name", "run", "warning") in found
        assert ("unclear_name", "get_User-info", "warning") in found
        assert ("invalid_name", "has space", "error") in codes([tool("has space")])

    def test_it_flags_json_output_without_output_schema(self) -> None:
        found = codes(
            [
                tool("get_order", description="Returns the order as JSON with items and totals."),
                tool("get_user", description="Fetch a user; returns an object with name and email."),
                tool("get_typed", description="Returns the order as JSON.", outputSchema={"type": "object"}),
                tool("say_hello", description="Greets the user by name in plain text."),
            ]
        )

        assert [f for f in found if f[0] == "json_without_output_schema"] == [
            ("json_without_output_schema", "get_order", "warning"),
            ("json_without_output_schema", "get_user", "warning"),
        ]

    def test_it_notes_undocumented_parameters(self) -> None:
        schema = {
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string", "description": "B"}},
        }

        report = quality_report([tool("get_forecast", inputSchema=schema)])

        assert [(f.code, f.message) for f in report.findings] == [
            ("undocumented_parameters", "Parameters without a description: a.")
        ]

    def test_it_measures_metadata_size(self) -> None:
        tools = [tool("get_forecast")]
        report = quality_report(tools)

        assert report.tool_count == 1
        assert report.metadata_chars > 100
        assert report.approx_tokens == -(-report.metadata_chars // 4)
        assert report.to_dict()["counts"] == {"error": 0, "warning": 0, "info": 0}

    def test_it_warns_about_a_huge_tool_list(self) -> None:
        tools = [tool(f"tool_number_{i}", description="A long description. " * 40) for i in range(60)]

        report = quality_report(tools)

        assert report.approx_tokens > 10_000
        assert report.findings[0].code == "large_metadata"
        assert report.counts()["warning"] == 1
