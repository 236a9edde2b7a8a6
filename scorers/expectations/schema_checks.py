"""JSON Schema checks for `tool_result` and `final_answer`: is a schema valid, and why a value fails it.

Draft 2020-12, the draft MCP uses for tool schemas. Only same-document `$ref`s resolve: jsonschema's referencing
library retrieves nothing from the network unless told to, so a schema cannot make the worker fetch a URL.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError, best_match


def schema_problem(schema: Any) -> str | None:
    """Why `schema` is not a valid JSON Schema, or None."""
    if not isinstance(schema, dict | bool):
        return "must be an object"
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        return f"is not a valid JSON Schema: {error.message}"
    return None


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
