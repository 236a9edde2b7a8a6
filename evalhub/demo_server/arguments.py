"""Checks tools/call arguments against the tool's published inputSchema and answers with readable errors.

Without this the SDK validates with pydantic and sends its raw report back ("1 validation error for
book_flightArguments ... Field required [type=missing ...] For further information visit ..."). A model
recovers better from "Missing required argument: passengers." The check runs as server middleware, before
the SDK's own validation, and returns an isError result, which is how MCP reports bad tool input.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator, ValidationError
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult, TextContent


class ArgumentCheck:
    """Server middleware: `server.middleware.append(ArgumentCheck(server))`."""

    def __init__(self, server: MCPServer) -> None:
        self._server = server
        self._validators: dict[str, Draft202012Validator] | None = None

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method != "tools/call" or not isinstance(ctx.params, Mapping):
            return await call_next(ctx)
        if self._validators is None:
            self._validators = {
                tool.name: Draft202012Validator(tool.input_schema) for tool in await self._server.list_tools()
            }
        name = ctx.params.get("name")
        validator = self._validators.get(name) if isinstance(name, str) else None
        arguments = ctx.params.get("arguments") or {}
        if validator is None or not isinstance(arguments, Mapping):
            # Unknown tools and malformed requests get the SDK's own protocol error.
            return await call_next(ctx)
        problems = describe_errors(validator, dict(arguments))
        if not problems:
            return await call_next(ctx)
        text = f"Invalid arguments for {name}: " + " ".join(problems)
        return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def describe_errors(validator: Draft202012Validator, arguments: dict[str, Any]) -> list[str]:
    """One sentence per problem, missing arguments first."""
    missing: list[str] = []
    unknown: list[str] = []
    other: list[str] = []
    for error in sorted(validator.iter_errors(arguments), key=lambda e: [str(p) for p in e.path]):
        if error.validator == "required" and not error.path:
            missing.extend(key for key in error.validator_value if key not in arguments)
        elif error.validator == "additionalProperties" and not error.path:
            unknown.extend(sorted(set(arguments) - set(validator.schema.get("properties", {}))))
        else:
            other.append(_sentence(error))
    sentences: list[str] = []
    if missing:
        plural = "s" if len(missing) > 1 else ""
        sentences.append(f"Missing required argument{plural}: {', '.join(missing)}.")
    if unknown:
        known = ", ".join(validator.schema.get("properties", {}))
        sentences.append(f"Unknown argument(s): {', '.join(unknown)} (this tool takes {known}).")
    return sentences + other


_TYPE_WORDS = {
    "number": "a number",
    "integer": "a whole number",
    "string": "a string",
    "boolean": "true or false",
    "object": "an object",
    "array": "a list",
}


def _sentence(error: ValidationError) -> str:
    field = ".".join(str(part) for part in error.path) or "arguments"
    schema = error.schema if isinstance(error.schema, dict) else {}
    value = error.instance
    if error.validator == "type":
        expected = error.validator_value
        word = _TYPE_WORDS.get(expected, expected) if isinstance(expected, str) else " or ".join(expected)
        return f"{field} must be {word} (got {value!r})."
    if error.validator in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            return f"{field} must be between {low:g} and {high:g} (got {value!r})."
        if low is not None:
            return f"{field} must be at least {low:g} (got {value!r})."
        return f"{field} must be at most {high:g} (got {value!r})."
    if error.validator == "pattern":
        examples = schema.get("examples") or []
        if examples:
            return f"{field} must look like {examples[0]!r} (got {value!r})."
        return f"{field} must match the pattern {error.validator_value} (got {value!r})."
    if error.validator == "enum":
        return f"{field} must be one of {', '.join(map(repr, error.validator_value))} (got {value!r})."
    return f"{field}: {error.message}."
