"""Arguments made up from a tool's inputSchema, a URI template or a prompt's argument list, for the runtime sweep.
Pure: no I/O.

`valid_arguments` fills the required properties (every property when `complete`) with the first value the schema
allows: its `const`, first `enum` value, `default`, first `examples` item, else a value of its type that meets its
bounds (a date for `format: date`, and so on). A schema it cannot satisfy (a `pattern`, a `not`) gives arguments
that break it; `is_valid` says so, and the sweep then does not blame the tool for refusing them.
`invalid_variants` breaks valid arguments in the two ways the sweep tries: a required field left out, and a
property given a value of the wrong type.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from jsonschema.exceptions import SchemaError
from jsonschema.validators import validator_for

FORMATS = {
    "date": "2025-01-15",
    "date-time": "2025-01-15T12:00:00Z",
    "time": "12:00:00",
    "email": "someone@example.com",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "123e4567-e89b-12d3-a456-426614174000",
    "ipv4": "192.0.2.1",
}
# Deep enough for real schemas; a recursive $ref-like nesting stops here.
MAX_DEPTH = 6
TEMPLATE_VARIABLE = re.compile(r"\{[+#./;?&]?([^}]+)\}")
# What a prompt's argument gets: a plain word most prompts accept.
SAMPLE_TEXT = "example"
# What a URI template's variable gets: templates name things by id more often than by word, and "1" is both.
SAMPLE_ID = "1"


def value_for(schema: Any, depth: int = 0) -> Any:
    """A value `schema` accepts, as far as this simple generator can tell."""
    if not isinstance(schema, Mapping):
        return SAMPLE_TEXT
    for key in ("const", "default"):
        if key in schema:
            return schema[key]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if isinstance(schema.get("examples"), list) and schema["examples"]:
        return schema["examples"][0]
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(schema.get(key), list) and schema[key]:
            return value_for(schema[key][0], depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        return {} if depth >= MAX_DEPTH else valid_arguments(schema, depth=depth + 1)
    if kind == "array":
        count = schema.get("minItems", 1) if isinstance(schema.get("minItems"), int) else 1
        return [] if depth >= MAX_DEPTH else [value_for(schema.get("items"), depth + 1) for _ in range(count)]
    if kind in ("integer", "number"):
        return _number(schema, integer=kind == "integer")
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    return _text(schema)


def _number(schema: Mapping[str, Any], *, integer: bool) -> int | float:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    value: float = 1
    if isinstance(low, int | float) and not isinstance(low, bool):
        value = low + (1 if "exclusiveMinimum" in schema and "minimum" not in schema else 0)
    elif isinstance(high, int | float) and not isinstance(high, bool) and high < 1:
        value = high - (1 if "exclusiveMaximum" in schema and "maximum" not in schema else 0)
    return int(value) if integer else value


def _text(schema: Mapping[str, Any]) -> str:
    text = FORMATS.get(str(schema.get("format", "")), SAMPLE_TEXT)
    low, high = schema.get("minLength"), schema.get("maxLength")
    if isinstance(low, int) and len(text) < low:
        text = text + "x" * (low - len(text))
    if isinstance(high, int) and len(text) > high:
        text = text[:high]
    return text


def valid_arguments(schema: Any, *, depth: int = 0, complete: bool = False) -> dict[str, Any]:
    """Arguments for an object schema: its required properties (all of them when `complete`)."""
    if not isinstance(schema, Mapping):
        return {}
    properties: Mapping[str, Any] = schema["properties"] if isinstance(schema.get("properties"), Mapping) else {}
    required = [name for name in schema.get("required") or [] if isinstance(name, str)]
    names = list(properties) if complete else required
    return {name: value_for(properties.get(name), depth) for name in names}


def is_valid(schema: Any, arguments: Mapping[str, Any]) -> bool:
    """Whether `arguments` satisfy `schema` (an unusable schema counts as satisfied: the static part reports it)."""
    if not isinstance(schema, Mapping):
        return True
    try:
        return bool(validator_for(schema)(schema).is_valid(arguments))
    except (SchemaError, TypeError, ValueError):
        return True


def wrong_type_value(schema: Any) -> Any:
    """A value of a type `schema` does not take."""
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    if kind in ("integer", "number", "boolean"):
        return "not-a-" + str(kind)
    if kind in ("object", "array"):
        return 12345
    return {"unexpected": ["object"]}


def invalid_variants(schema: Any, valid: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """{"missing_required": …, "wrong_type": …}: `valid` with its first required field left out, and with its
    first property (a required one if any) of the wrong type. A variant the schema gives no handle for is absent."""
    if not isinstance(schema, Mapping):
        return {}
    properties: Mapping[str, Any] = schema["properties"] if isinstance(schema.get("properties"), Mapping) else {}
    required = [name for name in schema.get("required") or [] if isinstance(name, str)]
    variants: dict[str, dict[str, Any]] = {}
    if required:
        variants["missing_required"] = {key: value for key, value in valid.items() if key != required[0]}
    target = required[0] if required else next(iter(properties), None)
    if target is not None:
        variants["wrong_type"] = {**valid, target: wrong_type_value(properties.get(target))}
    return variants


def template_variables(template: str) -> list[str]:
    """The variable names of an RFC 6570 URI template, in order: "file:///{path}{?q,n}" → path, q, n."""
    names: list[str] = []
    for group in TEMPLATE_VARIABLE.findall(template):
        names += [name.strip().rstrip("*").split(":")[0] for name in group.split(",")]
    return [name for name in dict.fromkeys(names) if name]


def expand_template(template: str, value: str = SAMPLE_ID) -> str:
    """The template with every variable given `value` (a query expansion becomes ?name=value&…)."""

    def fill(match: re.Match[str]) -> str:
        operator = match.group(0)[1] if match.group(0)[1] in "+#./;?&" else ""
        names = [name.strip().rstrip("*").split(":")[0] for name in match.group(1).split(",")]
        if operator in ("?", "&"):
            joined = "&".join(f"{name}={value}" for name in names)
            return ("?" if operator == "?" else "&") + joined
        separator = "," if operator in ("", "+", "#") else operator
        prefix = operator if operator in ("#", ".", "/", ";") else ""
        return prefix + separator.join(value for _ in names)

    return TEMPLATE_VARIABLE.sub(fill, template)


def prompt_arguments(prompt: Mapping[str, Any]) -> dict[str, str]:
    """Every required argument of a prompts/list entry, given SAMPLE_TEXT (prompt arguments are strings)."""
    arguments = prompt.get("arguments") or []
    return {
        str(arg["name"]): SAMPLE_TEXT
        for arg in arguments
        if isinstance(arg, Mapping) and arg.get("name") and arg.get("required")
    }
