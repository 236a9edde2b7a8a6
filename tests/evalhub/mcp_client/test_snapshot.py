"""Tool list fingerprints and diffs."""

from __future__ import annotations

import copy
from typing import Any

from evalhub.mcp_client import diff_tools, tools_hash


def tool(name: str, description: str = "Does a thing well.", **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "title": None,
        "description": description,
        "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        "outputSchema": None,
        "annotations": None,
        **extra,
    }


class ToolsHashTests:
    def test_it_ignores_list_order_and_key_order(self) -> None:
        a, b = tool("alpha"), tool("beta")
        reordered = {key: b[key] for key in reversed(list(b))}
        reordered["inputSchema"] = {"required": ["q"], "properties": {"q": {"type": "string"}}, "type": "object"}

        assert tools_hash([a, b]) == tools_hash([reordered, a])

    def test_it_changes_with_any_compared_field(self) -> None:
        base = tools_hash([tool("alpha")])

        assert tools_hash([tool("alpha", description="Does another thing.")]) != base
        assert tools_hash([tool("alpha", title="Alpha")]) != base
        assert tools_hash([tool("alpha", annotations={"readOnlyHint": True})]) != base
        assert tools_hash([tool("alpha", outputSchema={"type": "object"})]) != base
        assert tools_hash([tool("alpha"), tool("beta")]) != base

    def test_it_is_a_sha256_of_canonical_json(self) -> None:
        digest = tools_hash([])

        assert digest == "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"  # sha256(b"[]")


class DiffToolsTests:
    def test_it_reports_added_removed_and_changed_fields(self) -> None:
        old = [tool("search"), tool("delete"), tool("book")]
        new = [tool("search", description="Searches better."), tool("book"), tool("cancel")]
        new[1] = copy.deepcopy(new[1])
        new[1]["inputSchema"]["properties"]["q"]["type"] = "integer"
        new[1]["title"] = "Book"

        diff = diff_tools(old, new)

        assert diff.added == ["cancel"]
        assert diff.removed == ["delete"]
        assert diff.changed == {"book": ["title", "inputSchema"], "search": ["description"]}
        assert diff.summary() == "+1 added, -1 removed, 1 title changed, 1 description changed, 1 inputSchema changed"
        assert diff.to_dict()["summary"] == diff.summary()
        assert diff

    def test_identical_lists_have_no_changes(self) -> None:
        diff = diff_tools([tool("a1"), tool("b2")], [tool("b2"), tool("a1")])

        assert not diff
        assert diff.summary() == "no changes"

    def test_schema_key_order_is_not_a_change(self) -> None:
        reordered = tool(
            "a1", inputSchema={"required": ["q"], "type": "object", "properties": {"q": {"type": "string"}}}
        )

        assert diff_tools([tool("a1")], [reordered]).summary() == "no changes"
