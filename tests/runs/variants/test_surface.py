"""The pure surface module: parsing a variant (errors name the place), applying it, mapping a name back."""

from __future__ import annotations

from typing import Any

import pytest

from runs.variants.surface import VariantInvalid, apply_variant, check_against, minimal, parse_variant, surface_record

TOOLS: list[dict[str, Any]] = [
    {"name": "get_weather", "description": "Weather.", "inputSchema": {"type": "object"}, "title": "Weather"},
    {"name": "search_flights", "description": "Find flights.", "inputSchema": {"type": "object"}},
    {"name": "book_flight", "description": "Book.", "inputSchema": {"type": "object"}},
]


class ParseTests:
    @pytest.mark.parametrize(
        ("data", "message"),
        [
            ([], "variant: expected an object"),
            ({"name": ""}, "variant.name: give the variant a name"),
            ({"name": "Baseline"}, "names the server as it is"),
            ({"name": "x", "tool": {}}, "variant.tool: not a variant field"),
            ({"name": "x", "tools": {"a": {"title": "T"}}}, "variant.tools.a.title: only description and"),
            ({"name": "x", "tools": {"a": {"description": 3}}}, "variant.tools.a.description: expected text"),
            ({"name": "x", "tools": {"a": {"input_schema": {"type": "string"}}}}, "variant.tools.a.input_schema"),
            ({"name": "x", "hide": "a"}, "variant.hide: expected a list"),
            ({"name": "x", "rename": {"a": "b c"}}, "variant.rename.a: the new name"),
            ({"name": "x", "hide": ["a"], "rename": {"a": "b"}}, "variant.rename.a: this tool is hidden too"),
        ],
    )
    def test_it_names_the_place_at_fault(self, data: Any, message: str) -> None:
        with pytest.raises(VariantInvalid, match=message):
            parse_variant(data)

    def test_it_checks_names_against_the_server(self) -> None:
        names = [tool["name"] for tool in TOOLS]
        with pytest.raises(VariantInvalid, match=r"variants\[1\]\.hide\.nope: the server has no such tool"):
            check_against(parse_variant({"name": "x", "hide": ["nope"]}), names, where="variants[1]")
        with pytest.raises(VariantInvalid, match="two tools would both be offered as “book_flight”"):
            check_against(parse_variant({"name": "x", "rename": {"search_flights": "book_flight"}}), names)
        check_against(
            parse_variant({"name": "x", "rename": {"search_flights": "book_flight"}, "hide": ["book_flight"]}), names
        )


class ApplyTests:
    def test_without_a_variant_the_surface_is_the_server_s(self) -> None:
        surface = apply_variant(None, TOOLS)
        assert surface.tools == TOOLS
        assert surface.real_tool("get_weather") == TOOLS[0]

    def test_a_variant_changes_exactly_what_it_names(self) -> None:
        variant = parse_variant(
            {
                "name": "v",
                "tools": {"get_weather": {"description": "Now.", "input_schema": {"type": "object", "required": []}}},
                "hide": ["book_flight"],
                "rename": {"search_flights": "find_flights"},
            }
        )
        surface = apply_variant(variant, TOOLS)
        assert surface.tools == [
            {
                "name": "get_weather",
                "description": "Now.",
                "inputSchema": {"type": "object", "required": []},
                "title": "Weather",
            },
            {"name": "find_flights", "description": "Find flights.", "inputSchema": {"type": "object"}},
        ]
        assert surface.real_tool("find_flights") == TOOLS[1]
        # Neither the old name of a renamed tool nor a hidden tool can be called.
        assert surface.real_tool("search_flights") is None
        assert surface.real_tool("book_flight") is None
        assert TOOLS[1]["name"] == "search_flights"  # the server's list is not changed

    def test_the_editor_starts_from_the_surface_and_only_changes_are_kept(self) -> None:
        edited = surface_record(TOOLS)
        edited["tools"]["search_flights"]["description"] = "Search flights by route and day."
        kept = minimal(parse_variant(edited), TOOLS)
        assert kept.record() == {
            "name": "my-variant",
            "tools": {"search_flights": {"description": "Search flights by route and day."}},
            "hide": [],
            "rename": {},
        }
        assert parse_variant(kept.record()) == kept
