"""`EXPECTATIONS_JSON_SCHEMA`: the expectations list as JSON Schema (2020-12), for OpenAPI, editors and suite files.

Built from the same declarations validation uses. It describes shapes and types; a few rules need code
(ordered `$range` bounds, regexes and jq programs that compile, valid nested schemas, snapshots outside
compositions, suggestions), so `validate_expectations` is
the authority and this schema is what an editor can check while someone types.
"""

from __future__ import annotations

from typing import Any

from scorers.expectations.kinds import KINDS
from scorers.expectations.matchers import REGISTRY, Matcher
from scorers.expectations.spec import COMMON_PARAMS, Kind


def _matcher_schema(matcher: Matcher) -> dict[str, Any]:
    return {
        "type": "object",
        "description": matcher.description,
        "properties": {matcher.name: {**matcher.schema, "description": matcher.description}},
        "required": [matcher.name],
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
        "matcher": {"oneOf": [_matcher_schema(matcher) for matcher in REGISTRY.values()]},
        # A one-key object whose key starts with "$" is always read as a matcher, never as a literal.
        "dollarKeyObject": {
            "type": "object",
            "minProperties": 1,
            "maxProperties": 1,
            "propertyNames": {"pattern": "^\\$"},
        },
    },
}
