"""The run_code description: the server's tools as a typed JavaScript API (pure)."""

from __future__ import annotations

from runs.code_mode.typed_api import api_text, run_code_tool, ts_type

WEATHER = {
    "name": "get_weather",
    "description": "Get the weather. Closing */ comments stay inside.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "latitude": {"type": "number", "description": "Latitude in degrees."},
            "units": {"enum": ["metric", "imperial"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "odd key": {"type": ["string", "null"]},
        },
        "required": ["latitude"],
    },
    "outputSchema": {
        "type": "object",
        "properties": {"temperature_c": {"type": "integer"}, "nested": {"type": "object"}},
        "required": ["temperature_c"],
    },
}


class TypedApiTests:
    def test_it_declares_typed_parameters_and_result_with_descriptions_as_comments(self) -> None:
        text = api_text([WEATHER], max_calls=7)

        assert text.endswith(
            "declare const tools: {\n"
            "  /** Get the weather. Closing *\\/ comments stay inside. */\n"
            "  get_weather(args: {\n"
            "    /** Latitude in degrees. */\n"
            "    latitude: number;\n"
            '    units?: "metric" | "imperial";\n'
            "    tags?: Array<string>;\n"
            '    "odd key"?: string | null;\n'
            "  }): Promise<{\n"
            "    temperature_c: number;\n"
            "    nested?: Record<string, unknown>;\n"
            "  }>;\n"
            "};"
        )
        assert "At most 7 tool calls per run_code execution; each counts against the run's tool-call limit." in text

    def test_odd_tool_names_use_bracket_access_and_a_tool_without_schemas_is_unknown(self) -> None:
        text = api_text([{"name": "fetch-page.v2", "inputSchema": {"type": "object"}}], max_calls=1)

        assert '  ["fetch-page.v2"](args: Record<string, unknown>): Promise<unknown>;\n' in text

    def test_deep_or_unknown_schemas_are_summarised(self) -> None:
        deep: dict = {"type": "string"}
        for _ in range(8):
            deep = {"type": "array", "items": deep}
        assert "unknown" in ts_type(deep)
        assert ts_type({"$ref": "#/defs/x"}) == "unknown"
        assert ts_type({"const": "x"}) == '"x"'
        assert ts_type({"anyOf": [{"type": "string"}, {"type": "integer"}]}) == "string | number"

    def test_the_tool_takes_one_code_string(self) -> None:
        tool = run_code_tool([WEATHER], max_calls=20)
        assert tool["name"] == "run_code"
        assert tool["inputSchema"]["required"] == ["code"]
