"""Why a call's arguments were wrong, per argument, judged by the server's own input schema. Pure.

Kinds: "missing" (a required argument absent), "wrong type", "out of range" (minimum/maximum, lengths, item
counts, enum, const, pattern, format) and "unknown" (an argument the schema does not allow). Other schema
violations are "invalid". A schema that is itself invalid judges nothing: the server's answer is the only
evidence then (its `isError`, counted apart).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

MISSING, WRONG_TYPE, OUT_OF_RANGE, UNKNOWN, INVALID = "missing", "wrong type", "out of range", "unknown", "invalid"
_RANGE = {
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "enum",
    "const",
    "pattern",
    "format",
    "multipleOf",
}
WHOLE = "(arguments)"  # an error about the arguments object as a whole


@dataclass(frozen=True)
class ArgumentError:
    argument: str
    kind: str


def argument_errors(args: Mapping[str, Any], schema: Mapping[str, Any]) -> list[ArgumentError]:
    """Each wrong argument once, with the first reason found for it, in argument order."""
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return []
    found: dict[str, str] = {}
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    for error in validator.iter_errors(dict(args)):
        if error.validator == "required" and not error.path:
            for name in error.validator_value:
                if name not in args:
                    found.setdefault(str(name), MISSING)
            continue
        if error.validator == "additionalProperties" and not error.path:
            allowed = set((schema.get("properties") or {}).keys())
            for name in args:
                if name not in allowed:
                    found.setdefault(str(name), UNKNOWN)
            continue
        argument = str(error.path[0]) if error.path else WHOLE
        kind = WRONG_TYPE if error.validator == "type" else OUT_OF_RANGE if error.validator in _RANGE else INVALID
        found.setdefault(argument, kind)
    return [ArgumentError(name, kind) for name, kind in found.items()]
