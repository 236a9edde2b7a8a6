"""Code mode for the offline model: when the only tool offered is `run_code`, it reads the typed JavaScript API in
that tool's description back into tools, decides as usual, and writes a short program calling the tool it would
have called directly (`return await tools.get_weather({...});`).

The conversation is read through the same lens: an earlier `run_code` call counts as a call of the tool its
program called, and its result as what the program returned. Pure: no Django.
"""

from __future__ import annotations

import json
import re
from typing import Any

from evalhub.model_client.offline.ranking import Tool

RUN_CODE = "run_code"
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
_DECLARATIONS = re.compile(r"declare const tools: \{\n(.*)\n\};\s*$", re.DOTALL)
_TOOL = re.compile(r'^  ([A-Za-z_$][\w$]*|\["(?:[^"\\]|\\.)*"\])\(args: (.*)$')
_PROPERTY = re.compile(r'^    ([A-Za-z_$][\w$]*|"(?:[^"\\]|\\.)*")(\??): (.*?);?$')
_COMMENT = re.compile(r"^\s*/\*\* (.*) \*/$")
_CALLED = re.compile(r'tools(?:\.([A-Za-z_$][\w$]*)|\[("(?:[^"\\]|\\.)*")\])\(')
_RETURNED = re.compile(r"(?:^|\n\n)Return value: (.*)$", re.DOTALL)


def declared_tools(tools: list[Tool]) -> list[Tool] | None:
    """The tools behind a lone `run_code` tool, or None when this is not a code-mode request."""
    if len(tools) != 1 or tools[0].name != RUN_CODE:
        return None
    found = _DECLARATIONS.search(tools[0].description)
    if not found:
        return None
    declared: list[Tool] = []
    comment = ""
    in_args = False  # the lines of the args type, not of the result type that follows it
    for line in found.group(1).splitlines():
        if (note := _COMMENT.match(line)) is not None:
            comment = note.group(1)
            continue
        if (head := _TOOL.match(line)) is not None:
            name = head.group(1)
            name = json.loads(name[1:-1]) if name.startswith("[") else name
            schema: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
            declared.append(Tool(name=name, title="", description=comment, schema=schema))
            in_args = head.group(2) == "{"
        elif line.startswith("  })"):
            in_args = False
        elif (prop := _PROPERTY.match(line)) is not None and in_args:
            key = json.loads(prop.group(1)) if prop.group(1).startswith('"') else prop.group(1)
            schema = declared[-1].schema
            schema["properties"][key] = {**_type_schema(prop.group(3)), **({"description": comment} if comment else {})}
            if not prop.group(2):
                schema["required"].append(key)
        comment = ""
    return declared


def _type_schema(text: str) -> dict[str, Any]:
    text = text.strip()
    if text in {"number", "string", "boolean"}:
        return {"type": text}
    if text.startswith('"'):
        try:
            return {"enum": [json.loads(part) for part in text.split(" | ")]}
        except ValueError:
            return {"type": "string"}
    if text.startswith("Array<"):
        return {"type": "array"}
    return {"type": "object"} if text.startswith("{") or text.startswith("Record<") else {}


def as_direct(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation as if the tools had been called directly: each `run_code` call is named after the first
    tool its program calls, and its result is what the program returned (or its error)."""
    direct = []
    for message in messages:
        if message.get("role") == "assistant" and message.get("tool_calls"):
            message = {**message, "tool_calls": [_direct_call(call) for call in message["tool_calls"]]}
        elif message.get("role") == "tool" and isinstance(message.get("content"), str):
            returned = _RETURNED.search(message["content"])
            if returned and not message["content"].startswith("Error: "):
                message = {**message, "content": returned.group(1)}
        direct.append(message)
    return direct


def _direct_call(call: Any) -> Any:
    function = call.get("function") if isinstance(call, dict) else None
    if not isinstance(function, dict) or function.get("name") != RUN_CODE:
        return call
    try:
        code = json.loads(function.get("arguments") or "{}").get("code", "")
    except (ValueError, AttributeError):
        code = ""
    called = _CALLED.search(code if isinstance(code, str) else "")
    if called is None:
        return call
    name = called.group(1) or json.loads(called.group(2))
    return {**call, "function": {**function, "name": name}}


def program(tool_name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The `run_code` arguments for a program that calls one tool and returns its result. It logs nothing: the
    run page shows the return value, and a log of the same value would show it twice."""
    member = f".{tool_name}" if _IDENTIFIER.match(tool_name) else f"[{json.dumps(tool_name)}]"
    args = json.dumps(arguments, ensure_ascii=False)
    return {"code": f"const result = await tools{member}({args});\nreturn result;"}
