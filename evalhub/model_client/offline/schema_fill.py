"""The smallest valid value for a JSON schema, for `response_format: json_schema` requests (e.g. a judge)."""

from __future__ import annotations

from typing import Any

_EXPLANATION_NAMES = {"reason", "reasoning", "rationale", "explanation", "justification", "comment", "comments"}
EXPLANATION = "The EvalHub offline model does not judge; it returns the first allowed value."
_FORMATS = {
    "date": "1970-01-01",
    "date-time": "1970-01-01T00:00:00Z",
    "time": "00:00:00",
    "email": "offline@example.com",
    "uri": "https://example.com",
    "url": "https://example.com",
    "uuid": "00000000-0000-0000-0000-000000000000",
}


def example_for(schema: Any, *, root: Any = None, name: str = "", depth: int = 0) -> Any:
    """First enum value, zero, false, empty string, every property filled; `$ref`, anyOf and oneOf followed
    to their first non-null choice."""
    root = schema if root is None else root
    if not isinstance(schema, dict) or depth > 12:
        return None
    if isinstance(schema.get("$ref"), str):
        return example_for(_resolve(root, schema["$ref"]), root=root, name=name, depth=depth + 1)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        choices = schema.get(key)
        if isinstance(choices, list) and choices:
            non_null = [c for c in choices if not (isinstance(c, dict) and c.get("type") == "null")]
            return example_for((non_null or choices)[0], root=root, name=name, depth=depth + 1)
    if isinstance(schema.get("allOf"), list):
        merged: dict[str, Any] = {"type": "object", "properties": {}, "required": []}
        for part in schema["allOf"]:
            part = _resolve(root, part["$ref"]) if isinstance(part, dict) and "$ref" in part else part
            if isinstance(part, dict):
                merged["properties"].update(part.get("properties") or {})
                merged["required"] += part.get("required") or []
        return example_for(merged, root=root, name=name, depth=depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind is None:
        kind = "object" if "properties" in schema else "array" if "items" in schema else "string"
    if kind == "object":
        properties = schema.get("properties") or {}
        return {
            key: example_for(sub, root=root, name=key, depth=depth + 1)
            for key, sub in properties.items()
            if isinstance(sub, dict)
        }
    if kind == "array":
        count = int(schema.get("minItems") or 0)
        return [example_for(schema.get("items") or {}, root=root, depth=depth + 1) for _ in range(count)]
    if kind == "string":
        return _string(schema, name)
    if kind in {"integer", "number"}:
        return _number(schema, kind)
    if kind == "boolean":
        return False
    return None


def _string(schema: dict[str, Any], name: str) -> str:
    text = _FORMATS.get(str(schema.get("format")), "")
    if not text and name.lower() in _EXPLANATION_NAMES:
        text = EXPLANATION
    max_length = schema.get("maxLength")
    if isinstance(max_length, int):
        text = text[:max_length]
    min_length = schema.get("minLength")
    if isinstance(min_length, int) and len(text) < min_length:
        text += "x" * (min_length - len(text))
    return text


def _number(schema: dict[str, Any], kind: str) -> int | float:
    value: float = 0
    if isinstance(schema.get("minimum"), int | float):
        value = max(value, schema["minimum"])
    if isinstance(schema.get("exclusiveMinimum"), int | float) and value <= schema["exclusiveMinimum"]:
        value = schema["exclusiveMinimum"] + 1
    if isinstance(schema.get("maximum"), int | float) and value > schema["maximum"]:
        value = schema["maximum"]
    if isinstance(schema.get("exclusiveMaximum"), int | float) and value >= schema["exclusiveMaximum"]:
        value = schema["exclusiveMaximum"] - 1
    if kind == "integer":
        return int(value)
    return value


def _resolve(root: Any, ref: str) -> Any:
    if not ref.startswith("#"):
        return {}
    node = root
    for part in ref.lstrip("#/").split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        node = node.get(part) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else {}
