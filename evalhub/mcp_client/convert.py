"""SDK models to plain, JSON-serialisable dicts: what the rest of EvalHub stores, hashes and renders.

Keys keep the MCP wire spelling (inputSchema, structuredContent, isError) so stored snapshots read like the
protocol. Only the fields listed here are kept; protocol plumbing (ttlMs, cacheScope, _meta) is dropped.
"""

from __future__ import annotations

from typing import Any, TypedDict

import mcp_types
from pydantic import BaseModel


class ToolDict(TypedDict):
    name: str
    title: str | None
    description: str | None
    inputSchema: dict[str, Any]
    outputSchema: dict[str, Any] | None
    annotations: dict[str, Any] | None


class ResourceDict(TypedDict):
    uri: str
    name: str
    title: str | None
    description: str | None
    mimeType: str | None


class ResourceTemplateDict(TypedDict):
    uriTemplate: str
    name: str
    title: str | None
    description: str | None
    mimeType: str | None


class PromptArgumentDict(TypedDict):
    name: str
    description: str | None
    required: bool


class PromptDict(TypedDict):
    name: str
    title: str | None
    description: str | None
    arguments: list[PromptArgumentDict]


class ToolResultDict(TypedDict):
    content: list[dict[str, Any]]
    structuredContent: dict[str, Any] | None
    isError: bool


def dump(model: BaseModel | None) -> dict[str, Any] | None:
    if model is None:
        return None
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def tool(item: mcp_types.Tool) -> ToolDict:
    return {
        "name": item.name,
        "title": item.title,
        "description": item.description,
        "inputSchema": dict(item.input_schema),
        "outputSchema": dict(item.output_schema) if item.output_schema is not None else None,
        "annotations": dump(item.annotations) or None,
    }


def resource(item: mcp_types.Resource) -> ResourceDict:
    return {
        "uri": str(item.uri),
        "name": item.name,
        "title": item.title,
        "description": item.description,
        "mimeType": item.mime_type,
    }


def resource_template(item: mcp_types.ResourceTemplate) -> ResourceTemplateDict:
    return {
        "uriTemplate": item.uri_template,
        "name": item.name,
        "title": item.title,
        "description": item.description,
        "mimeType": item.mime_type,
    }


def prompt(item: mcp_types.Prompt) -> PromptDict:
    return {
        "name": item.name,
        "title": item.title,
        "description": item.description,
        "arguments": [
            {"name": arg.name, "description": arg.description, "required": bool(arg.required)}
            for arg in item.arguments or []
        ],
    }


def tool_result(result: mcp_types.CallToolResult) -> ToolResultDict:
    return {
        "content": [dump(block) or {} for block in result.content],
        "structuredContent": result.structured_content,
        "isError": bool(result.is_error),
    }
