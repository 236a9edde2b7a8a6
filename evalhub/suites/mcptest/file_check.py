"""mcptest's schema (schema.py) applied to a file: every place it refuses, with a message saying what to write.

A file that passes is what the converter walks.
"""

from __future__ import annotations

import json
import re
from typing import Any

from jsonschema import Draft202012Validator, ValidationError

from evalhub.suites.mcptest.schema import MATCHER, MATCHERS, SCHEMA
from evalhub.suites.validation import schema_problems
from scorers.expectations.matchers import suggestion

_VALIDATOR = Draft202012Validator(SCHEMA)


def schema_errors(data: Any) -> list[tuple[str, str]]:
    """(JSON pointer, message) for everything mcptest's schema refuses, in file order; empty when it loads."""
    if not isinstance(data, dict):
        return [("", "an mcptest file is a mapping with servers: and tests (tools, agents, evals…)")]
    found = {item for error in _VALIDATOR.iter_errors(data) for item in _problems(error)}
    for name, server in (data.get("servers") or {}).items() if isinstance(data.get("servers"), dict) else []:
        shapes = [key for key in ("command", "url", "cassette") if isinstance(server, dict) and key in server]
        if isinstance(server, dict) and len(shapes) != 1:
            found.add((f"/servers/{name}", "a server has exactly one of command, url or cassette"))
    for index, test in enumerate(data.get("agents") or []) if isinstance(data.get("agents"), list) else []:
        if isinstance(test, dict) and ("model" in test) == ("models" in test):
            found.add((f"/agents/{index}", "an agent has exactly one of model or models"))
        if isinstance(test, dict) and "prompt" not in test and "turns" not in test:
            found.add((f"/agents/{index}", "an agent needs a prompt, or turns that supply the user side"))
    for name, variable in (data.get("variables") or {}).items() if isinstance(data.get("variables"), dict) else []:
        if isinstance(variable, dict) and ("value" in variable) == ("from_env" in variable):
            found.add((f"/variables/{name}", "a variable has exactly one of value or from_env"))
    return sorted(found, key=lambda item: _order(item[0]))


def _order(pointer: str) -> list[Any]:
    return [(0, int(part), "") if part.isdigit() else (1, 0, part) for part in pointer.split("/")]


def _problems(error: ValidationError) -> list[tuple[str, str]]:
    if error.validator == "type":
        pointer = "".join(f"/{part}" for part in error.absolute_path)
        return [(pointer, f"expected {_kinds(error.validator_value)}, got {_shown(error.instance)}")]
    if error.validator == "pattern":
        pointer = "".join(f"/{part}" for part in error.absolute_path)
        return [(pointer, f"expected a duration like 30s, 500ms, 1m or 1h, got {_shown(error.instance)}")]
    if error.validator in ("minProperties", "maxProperties") and error.schema is MATCHER:
        pointer = "".join(f"/{part}" for part in error.absolute_path)
        return [(pointer, f"a matcher has exactly one key (one of {', '.join(MATCHERS)})")]
    if error.validator == "additionalProperties" and "assertions" in error.schema.get("properties", {}):
        pointer = "".join(f"/{part}" for part in error.absolute_path)
        return [
            (f"{pointer}/{key}", _expect_key(key)) for key in error.instance if key not in error.schema["properties"]
        ]
    if error.validator == "anyOf":
        # The branch of the value's own kind says what is wrong inside it; with none of its kind, name the kinds.
        depth = len(error.absolute_path)
        inner = [e for e in error.context or [] if e.validator != "type" or len(e.absolute_path) > depth]
        if inner:
            return [item for sub in inner for item in _problems(sub)]
        pointer = "".join(f"/{part}" for part in error.absolute_path)
        kinds = [kind for branch in error.validator_value for kind in _branch_kinds(branch)]
        return [(pointer, f"expected {_kinds(kinds)}, got {_shown(error.instance)}")]
    return schema_problems(error)


_TARGETS = re.compile(
    r"^(tool_names|tool_calls|tool_results|redundant_tool_calls|final_response|conversation|result)\b"
)


def _expect_key(key: str) -> str:
    """An unknown key of the long form `expect: {assertions: [...], …}`; a target written as a key (a natural guess)
    is told how it is written."""
    if _TARGETS.match(key):
        return (
            f'unknown key "{key}": {key} is an assertion target, not a key of expect: write it under expect (or '
            f"expect.assertions) as `- target: {key}` with `matcher: {{…}}`"
        )
    return f'unknown key "{key}"{suggestion(key, ["assertions", "max_duration_ms", "max_response_tokens"])}'


def _branch_kinds(branch: dict[str, Any]) -> list[str]:
    kind = branch.get("type")
    return kind if isinstance(kind, list) else [kind] if kind else []


def _kinds(value: Any) -> str:
    names = value if isinstance(value, list) else [value]
    words = {"object": "a mapping", "array": "a list", "null": "null (~)", "integer": "an integer"}
    return " or ".join(dict.fromkeys(words.get(name, f"a {name}") for name in names))


def _shown(value: Any) -> str:
    """The value's kind, and a short scalar itself (`a string "10"`): what was written, so it can be fixed. A long
    string is not repeated (a secret pasted in the wrong place must not be echoed back)."""
    kind = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "a list"}.get(
        type(value), "null" if value is None else "a mapping"
    )
    if isinstance(value, bool | int | float) or (isinstance(value, str) and len(value) <= 12):
        return f"{kind} {json.dumps(value)}"
    return kind
