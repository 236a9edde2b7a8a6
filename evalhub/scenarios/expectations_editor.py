"""What the scenario form's Expectations editor needs: each kind's fields as widgets, and the check endpoint's
answer (every row's sentence and its errors). Both come from the engine's own declarations and messages, so the
editor cannot offer a field the engine refuses or word an error differently.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from scorers.expectations import KIND_DESCRIPTIONS, MATCHERS, describe, validate_expectations
from scorers.expectations.kinds import KINDS
from scorers.expectations.matchers import REGISTRY
from scorers.expectations.spec import COMMON_PARAMS, Param
from scorers.expectations.validation import validate_expectation
from scorers.expectations.values import JSON_TYPES

_ROW = re.compile(r"^expectations\[(\d+)\](.*)$", re.DOTALL)
# Parameters every row shows below its kind's own; `turn` stays in the JSON view (few runs record turns).
ROW_COMMON = ("weight", "required", "description")


def widget(name: str, param: Param) -> dict[str, Any]:
    """How the editor shows one parameter: text, integer, number, flag, select, list, call, args, value or json."""
    schema = param.schema
    field: dict[str, Any] = {"name": name, "description": param.description, "widget": "json"}
    if name == "args":
        field["widget"] = "args"
    elif schema.get("$ref") == "#/$defs/value":
        field["widget"] = "value"  # an expected value: a literal or any matcher, compositions nested
    elif name == "call":
        # `any` is offered only where the schema allows it; the first option is the default, left out of the JSON.
        named = [option for option in ("any", "first") if _allows(schema, option)]
        field.update(widget="call", options=[*named, "nth"])
    elif "enum" in schema:
        field.update(widget="select", options=list(schema["enum"]))
    elif schema.get("const") is True or schema.get("type") == "boolean":
        # A flag left out of the JSON means its default: `required` is on unless unticked.
        field.update(widget="flag", default=schema.get("default", False))
    elif schema.get("type") in ("string", "integer", "number"):
        field["widget"] = {"string": "text", "integer": "integer", "number": "number"}[schema["type"]]
    elif schema.get("type") == "array" and schema.get("items", {}).get("type") == "string":
        field["widget"] = "list"
    return field


def _allows(schema: Mapping[str, Any], value: str) -> bool:
    return any(value in branch.get("enum", ()) or branch.get("const") == value for branch in schema.get("oneOf", ()))


def editor_spec() -> dict[str, Any]:
    """Kinds (in the engine's order), their fields, the common fields, and the matchers, for the editor's script."""
    kinds = [
        {
            "name": kind.name,
            "description": KIND_DESCRIPTIONS[kind.name],
            "fields": [widget(name, param) for name, param in kind.params.items()],
            "required": list(kind.required),
            "oneOf": list(kind.one_of),
        }
        for kind in KINDS.values()
    ]
    return {
        "kinds": kinds,
        "common": [widget(name, COMMON_PARAMS[name]) for name in ROW_COMMON],
        "matchers": MATCHERS,
        # What the editor fills in when a matcher is picked, so its inputs start from a valid argument.
        "matcherExamples": {name: matcher.example for name, matcher in REGISTRY.items()},
        "jsonTypes": list(JSON_TYPES),
    }


def expectations_check(data: Any) -> dict[str, Any]:
    """The editor's live check: each row's sentence (when valid) and its errors, and errors about the whole list.

    Row errors drop the `expectations[i]` prefix, since they are shown under row i: `.args.latitude: …`.
    """
    if not isinstance(data, list):
        return {"rows": [], "errors": validate_expectations(data)}
    rows = []
    for index, item in enumerate(data):
        errors = validate_expectation(item, f"expectations[{index}]")
        rows.append(
            {
                "label": describe(item) if not errors and isinstance(item, Mapping) else "",
                "errors": [_within_row(error) for error in errors],
            }
        )
    return {"rows": rows, "errors": []}


def _within_row(error: str) -> str:
    found = _ROW.match(error)
    if found is None:
        return error
    rest = found.group(2)
    return rest[2:] if rest.startswith(": ") else rest.lstrip(".")
