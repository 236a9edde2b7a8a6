"""JSON Schema checks for `tool_result`, `final_answer` and the `$schema`/`$isJson` matchers: is a schema valid,
and why a value fails it.

Draft 2020-12, the draft MCP uses for tool schemas. Only same-document `$ref`s resolve: jsonschema's referencing
library retrieves nothing from the network unless told to, so a schema cannot make the worker fetch a URL; an
external `$ref` is refused when the schema is validated (as mcptest does) rather than failing every run later.
Nesting is capped at 64 levels, mcptest's limit, so a pathological schema cannot exhaust the validator's stack.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, best_match


def schema_problem(schema: Any) -> str | None:
    """Why `schema` is not a valid JSON Schema, or None."""
    if not isinstance(schema, dict | bool):
        return "must be an object"
    if _depth(schema) > MAX_DEPTH:
        return f"is nested deeper than {MAX_DEPTH} levels"
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        return f"is not a valid JSON Schema: {error.message}"
    external = next((ref for ref in _refs(schema) if not ref.startswith("#")), None)
    if external is not None:
        return f"uses the external $ref {external!r}: only same-document references (#/…) are allowed"
    return None


MAX_DEPTH = 64


def _depth(value: Any) -> int:
    """How deep containers nest (iteratively, so a very deep value cannot overflow the stack while measured)."""
    deepest, stack = 0, [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth + 1)
            if deepest > MAX_DEPTH:
                return deepest
            stack += [(sub, depth + 1) for sub in (item.values() if isinstance(item, dict) else item)]
    return deepest


def _refs(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, sub in value.items():
            if key in ("$ref", "$dynamicRef") and isinstance(sub, str):
                yield sub
            else:
                yield from _refs(sub)
    elif isinstance(value, list):
        for sub in value:
            yield from _refs(sub)


def schema_violation(schema: Any, value: Any) -> str | None:
    """The most relevant reason `value` fails `schema` (with where, when not the value itself), or None."""
    try:
        error = best_match(Draft202012Validator(schema).iter_errors(value))
    except Exception as error:  # An unresolvable $ref is the schema's fault: reported as a failure, not a crash.
        return f"the schema could not be applied: {error}"
    if error is None:
        return None
    where = "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in error.absolute_path)
    return f"{error.message} (at ${where})" if where else error.message
