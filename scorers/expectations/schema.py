"""`EXPECTATIONS_JSON_SCHEMA`: the expectations list as JSON Schema (2020-12), for OpenAPI, editors and suite files.

Built from the same declarations validation uses. It describes shapes and types; a few rules need code
(ordered `$range` bounds, regexes that compile, valid nested schemas, suggestions), so `validate_expectations` is
the authority and this schema is what an editor can check while someone types.
"""

from __future__ import annotations

from typing import Any

from scorers.expectations.kinds import KINDS
from scorers.expectations.matchers import MATCHERS
from scorers.expectations.spec import COMMON_PARAMS, Kind
from scorers.expectations.values import JSON_TYPES

_MATCHER_ARGUMENTS: dict[str, dict[str, Any]] = {
    "$type": {"enum": list(JSON_TYPES)},
    "$regex": {"type": "string", "format": "regex"},
    "$range": {"type": "array", "prefixItems": [{"type": "number"}, {"type": "number"}], "minItems": 2, "maxItems": 2},
    "$contains": {},
    "$icontains": {"type": "string"},
    "$oneOf": {"type": "array", "minItems": 1},
    "$any": {"const": True},
}


def _matcher_schema(name: str) -> dict[str, Any]:
    return {
        "type": "object",
        "description": MATCHERS[name],
        "properties": {name: {**_MATCHER_ARGUMENTS[name], "description": MATCHERS[name]}},
        "required": [name],
        "additionalProperties": False,
    }


def _kind_schema(kind: Kind) -> dict[str, Any]:
    params = {**kind.params, **COMMON_PARAMS}
    if kind.whole_run:
        params.pop("turn")
    properties: dict[str, Any] = {"kind": {"const": kind.name, "description": kind.description}}
    properties |= {name: {**param.schema, "description": param.description} for name, param in params.items()}
    schema: dict[str, Any] = {
        "type": "object",
        "title": kind.name,
        "description": kind.description,
        "properties": properties,
        "required": ["kind", *kind.required],
        "additionalProperties": False,
    }
    if kind.one_of:
        schema["oneOf"] = [{"required": [name]} for name in kind.one_of]
    return schema | dict(kind.extra_schema)


EXPECTATIONS_JSON_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Expectations",
    "description": "Declarative checks on a run: tool calls, their arguments and results, the answer, budgets.",
    "type": "array",
    "items": {"oneOf": [_kind_schema(kind) for kind in KINDS.values()]},
    "$defs": {
        "value": {
            "description": "An expected value: a matcher, or a literal (which may hold matchers at any depth).",
            "anyOf": [
                {"$ref": "#/$defs/matcher"},
                {"type": ["string", "number", "boolean", "null"]},
                {"type": "array", "items": {"$ref": "#/$defs/value"}},
                {
                    "type": "object",
                    "not": {"$ref": "#/$defs/dollarKeyObject"},
                    "additionalProperties": {"$ref": "#/$defs/value"},
                },
            ],
        },
        "matcher": {"oneOf": [_matcher_schema(name) for name in MATCHERS]},
        # A one-key object whose key starts with "$" is always read as a matcher, never as a literal.
        "dollarKeyObject": {
            "type": "object",
            "minProperties": 1,
            "maxProperties": 1,
            "propertyNames": {"pattern": "^\\$"},
        },
    },
}
