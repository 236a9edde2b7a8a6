"""The `run_code` tool a code-mode model is offered: the server's tools described as a typed JavaScript API.

Types are TypeScript-like, generated from each tool's inputSchema and outputSchema; descriptions become
comments. Tool and property names that are not JavaScript identifiers are written with bracket access /
quoted keys, so any name the server uses can be called. Pure: no Django.
"""

from __future__ import annotations

import json
import re
from typing import Any

RUN_CODE = "run_code"
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
# Deeper schemas are summarised as `unknown`: the description must stay readable and finite.
_MAX_DEPTH = 4
_SCALARS = {"string": "string", "number": "number", "integer": "number", "boolean": "boolean", "null": "null"}


def _comment(text: str, indent: str) -> str:
    lines = " ".join(str(text).split()).replace("*/", "*\\/")
    return f"{indent}/** {lines} */\n" if lines else ""


def _key(name: str) -> str:
    return name if _IDENTIFIER.match(name) else json.dumps(name)


def ts_type(schema: Any, indent: str = "", depth: int = 0) -> str:
    """A TypeScript-like type for a JSON Schema (the parts that matter to a caller)."""
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return "unknown"
    if "const" in schema:
        return json.dumps(schema["const"])
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return " | ".join(json.dumps(value) for value in schema["enum"])
    for union in ("anyOf", "oneOf"):
        if isinstance(schema.get(union), list) and schema[union]:
            return " | ".join(ts_type(part, indent, depth + 1) for part in schema[union])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " | ".join(ts_type({**schema, "type": one}, indent, depth) for one in kind) or "unknown"
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "array":
        item = ts_type(schema.get("items"), indent, depth + 1)
        return f"Array<{item}>"
    if kind == "object" or "properties" in schema:
        return _object(schema, indent, depth)
    return "unknown"


def _object(schema: dict[str, Any], indent: str, depth: int) -> str:
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return "Record<string, unknown>"
    required = set(schema.get("required") or [])
    inner = indent + "  "
    body = ""
    for name, prop in properties.items():
        if isinstance(prop, dict) and prop.get("description"):
            body += _comment(prop["description"], inner)
        optional = "" if name in required else "?"
        body += f"{inner}{_key(str(name))}{optional}: {ts_type(prop, inner, depth + 1)};\n"
    return "{\n" + body + indent + "}"


def _signature(tool: dict[str, Any]) -> str:
    name = str(tool["name"])
    member = name if _IDENTIFIER.match(name) else f"[{json.dumps(name)}]"
    params = ts_type(tool.get("inputSchema") or {"type": "object"}, "  ", 1)
    output = tool.get("outputSchema")
    returns = ts_type(output, "  ", 1) if output else "unknown"
    return _comment(tool.get("description") or "", "  ") + f"  {member}(args: {params}): Promise<{returns}>;\n"


def api_text(tools: list[dict[str, Any]], *, max_calls: int) -> str:
    """The description of `run_code`: how to call the tools, and their typed declarations."""
    declarations = "".join(_signature(tool) for tool in tools)
    return (
        "Run JavaScript that calls this server's tools, then see its console output and return value. The code is "
        "the body of an async function: use `await`, `console.log(...)` and `return value`. Call a tool with "
        '`await tools.name({ ...args })` (or `tools["odd-name"](...)`). A tool with an output type resolves to '
        "its structured result; otherwise to its text (parsed when it is JSON). A tool error rejects with an Error "
        "carrying its message. Only standard JavaScript is available: no network, files, timers, require or "
        f"import. At most {max_calls} tool calls per run_code execution; each counts against the run's "
        "tool-call limit.\n\n"
        f"declare const tools: {{\n{declarations}}};"
    )


def run_code_tool(tools: list[dict[str, Any]], *, max_calls: int) -> dict[str, Any]:
    """The one tool a code-mode model is offered, as an MCP tool definition."""
    return {
        "name": RUN_CODE,
        "description": api_text(tools, max_calls=max_calls),
        "inputSchema": {
            "type": "object",
            "properties": {"code": {"type": "string", "description": "JavaScript: the body of an async function."}},
            "required": ["code"],
        },
    }
