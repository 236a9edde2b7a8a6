"""What the agent loop does with a tool's result: show it to the model, and check it against the outputSchema."""

from __future__ import annotations

import json
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError


def as_model_content(result: dict[str, Any]) -> str:
    """The tool message the model reads: the text blocks, else the structured content as JSON."""
    texts = [block.get("text", "") for block in result.get("content", []) if block.get("type") == "text"]
    if texts:
        return "\n".join(texts)
    if result.get("structuredContent") is not None:
        return json.dumps(result["structuredContent"])
    others = [block.get("type", "?") for block in result.get("content", [])]
    return f"[{', '.join(others)} content]" if others else "[empty result]"


def check_output_schema(tool: dict[str, Any] | None, result: dict[str, Any]) -> dict[str, Any] | None:
    """For a tool with an outputSchema: did structuredContent validate? None when the tool declares no schema.

    The spec (2025-06-18) says clients MUST validate structured results against the declared schema; an invalid
    one is recorded and shown, never a crash. Error results are not checked (None): they carry no structured content.
    """
    schema = (tool or {}).get("outputSchema")
    if not schema or result.get("isError"):
        return None
    structured = result.get("structuredContent")
    if structured is None:
        return {"valid": False, "message": "the tool declares an outputSchema but returned no structuredContent"}
    try:
        validator = Draft202012Validator(schema)
        errors = sorted(validator.iter_errors(structured), key=lambda error: list(error.path))
    except SchemaError as exc:
        return {"valid": False, "message": f"the tool's outputSchema is not valid JSON Schema: {exc.message}"}
    if not errors:
        return {"valid": True, "message": ""}
    first = errors[0]
    where = "/".join(str(part) for part in first.path) or "(root)"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return {"valid": False, "message": f"structuredContent at {where}: {first.message}{more}"}
