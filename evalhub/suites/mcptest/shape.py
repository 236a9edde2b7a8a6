"""The shape of an mcptest v1 suite: which keys hold a mapping, a list or text. Django-free.

Only the containers the converter walks are described; everything inside them is judged by the converter, which
reports what does not carry over. A file whose sections have another shape (`servers: 5`, `agents: {…}`) cannot be
converted at all: its problems name the place, like a suite file's.
"""

from __future__ import annotations

from typing import Any

from jsonschema import Draft202012Validator

from evalhub.suites.validation import schema_problems

_MAP: dict[str, Any] = {"type": "object"}
_LIST: dict[str, Any] = {"type": "array"}
_TEXT: dict[str, Any] = {"type": "string"}
_NAMES: dict[str, Any] = {"type": "array", "items": _TEXT}
_RUBRIC: dict[str, Any] = {
    "anyOf": [_TEXT, {"type": "object", "properties": {"criteria": {"type": "array", "items": _MAP}}}]
}
_EXPECT: dict[str, Any] = {
    "anyOf": [{"type": "array", "items": _MAP}, {"type": "object", "properties": {"assertions": _LIST}}]
}

SHAPE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "servers": {
            "type": "object",
            "additionalProperties": {
                "type": "object",
                "properties": {
                    "command": {"anyOf": [_TEXT, _NAMES]},
                    "url": _TEXT,
                    "env": _MAP,
                    "headers": {
                        "type": "object",
                        "additionalProperties": {
                            "anyOf": [
                                {"type": ["string", "number", "boolean"]},
                                {"type": "object", "properties": {"env": _TEXT}, "required": ["env"]},
                            ]
                        },
                    },
                    "auth": _MAP,
                },
            },
        },
        "variables": {"type": "object", "additionalProperties": _MAP},
        "providers": {"type": "object", "additionalProperties": _MAP},
        "rubrics": _MAP,
        "agents": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "models": _LIST,
                    "servers": _NAMES,
                    "tags": _LIST,
                    "expect": _EXPECT,
                    "eval": {"type": "object", "properties": {"rubric": _RUBRIC}},
                },
            },
        },
        "tools": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"args": _MAP, "expect": {"type": "array", "items": _MAP}, "tags": _LIST},
            },
        },
        "evals": {"type": "array", "items": {"type": "object", "properties": {"rubric": _RUBRIC}}},
    },
}
_VALIDATOR = Draft202012Validator(SHAPE)


def shape_problems(data: Any) -> list[tuple[str, str]]:
    """(JSON pointer, message) for each container of the wrong kind; empty when the converter can walk it."""
    if not isinstance(data, dict):
        return [("", "an mcptest suite is a mapping of sections (servers, agents, tools, evals…)")]
    return sorted({item for error in _VALIDATOR.iter_errors(data) for item in schema_problems(error)})
