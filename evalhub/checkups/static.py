"""The static part: the quality report (evalhub.mcp_client.quality) as scored findings, plus the checks of
reference 004 that need a tool's answer: structuredContent from a tool that declares no outputSchema, a text
content that disagrees with the structuredContent, and the `_meta` a tool or its result carries (recorded and
shown, never judged). Pure: no I/O."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from evalhub.checkups.findings import Finding
from evalhub.checkups.sweep import own_meta_keys
from evalhub.mcp_client.quality import quality_report

# Where each quality finding points in the tool, and what to do about it.
QUALITY_ADVICE: dict[str, tuple[str, str]] = {
    "duplicate_name": ("name", "Give every tool a unique name."),
    "invalid_tool": ("definition", "Fix the tool's definition so it is valid MCP."),
    "large_metadata": ("tools/list", "Offer fewer tools or shorten their descriptions and schemas."),
    "shipped_evals_capped": ("evals/list", "Ship fewer, smaller evals."),
    "no_description": ("description", "Say what the tool does, what it returns and when to use it."),
    "short_description": ("description", "Say what the tool does, what it returns and when to use it."),
    "invalid_schema": ("inputSchema", 'Make the schema valid JSON Schema with "type": "object".'),
    "json_without_output_schema": ("outputSchema", "Declare an outputSchema and return structuredContent."),
    "invalid_name": ("name", "Use 1-128 letters, digits, '_', '-', '.' or '/'."),
    "unclear_name": ("name", "Name the tool after what it does, in one naming style (snake_case)."),
    "undocumented_parameters": ("inputSchema.properties", "Describe every parameter: models fill them from that."),
}


def static_findings(
    tools: Sequence[Mapping[str, Any]], calls: Sequence[Mapping[str, Any]], *, evals_capped: str = ""
) -> list[Finding]:
    report = quality_report(tools, evals_capped=evals_capped)
    found = []
    for item in report.findings:
        field, advice = QUALITY_ADVICE.get(item.code, ("", "See the message."))
        if item.code == "invalid_schema" and "outputSchema" in item.message:
            field = "outputSchema"
        found.append(Finding("static", item.severity, item.code, item.message, advice, item.tool or "", field))
    by_name = {str(tool.get("name", "")): tool for tool in tools}
    answered = {call["tool"]: call for call in calls if call["kind"] == "valid" and call["outcome"] == "result"}
    for name, tool in by_name.items():
        found.extend(_structured(name, tool, answered.get(name)))
        found.extend(_meta(name, tool, answered.get(name)))
    return found


def _structured(name: str, tool: Mapping[str, Any], call: Mapping[str, Any] | None) -> list[Finding]:
    if call is None or not call.get("structured"):
        return []
    found = []
    if tool.get("outputSchema") is None:
        found.append(
            Finding(
                "static",
                "warning",
                "structured_without_output_schema",
                "The tool returns structuredContent but declares no outputSchema, so clients cannot validate it.",
                "Declare the outputSchema of what structuredContent holds.",
                name,
                "outputSchema",
                f"structuredContent returned by {call['tool']}({_args(call)})",
            )
        )
    if call.get("content_agrees") is False:
        found.append(
            Finding(
                "static",
                "warning",
                "content_disagrees_with_structured",
                "No text content block carries the structuredContent as JSON, so clients that read only content "
                "see something else.",
                "Also return the structuredContent serialised as JSON in a text content block (spec 2025-06-18).",
                name,
                "content",
                f"result of {call['tool']}({_args(call)}): {str(call.get('preview', ''))[:200]}",
            )
        )
    return found


def _meta(name: str, tool: Mapping[str, Any], call: Mapping[str, Any] | None) -> list[Finding]:
    places = []
    if keys := own_meta_keys(tool.get("_meta")):
        places.append(f"definition: {', '.join(keys)}")
    if call is not None and call.get("meta_keys"):
        places.append(f"result: {', '.join(call['meta_keys'])}")
    if not places:
        return []
    return [
        Finding(
            "static",
            "info",
            "meta_recorded",
            "The tool carries _meta, recorded here; clients pass it through and models never see it.",
            "Keep _meta for client data only; say anything a model needs in the description or content.",
            name,
            "_meta",
            "; ".join(places),
        )
    ]


def _args(call: Mapping[str, Any]) -> str:
    return json.dumps(call.get("arguments", {}), ensure_ascii=False)[:120]
