"""The small JSON path subset `tool_result` reads a CallToolResult with.

Supported: an optional `$` root, `.name` for a key (letters, digits, `_`, `-`), `["any key"]` for other keys and
`[0]` for an array index (non-negative). Examples: `$.structuredContent.temperature`, `content[0].text`,
`$.structuredContent["feels-like"]`, `$` (the whole result). No wildcards, filters, slices or negative indexes:
an expectation checks one value, and a path that could select several would make "the value" ambiguous.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from scorers.expectations.matchers import join_path

_STEP = re.compile(r'\.([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')

Step = str | int


class PathError(ValueError):
    """A path outside the supported subset."""


def parse_path(path: str) -> list[Step]:
    """The keys and indexes of a path; raises PathError with the position of what is not understood."""
    text = path[1:] if path.startswith("$") else path
    if text and text[0] not in ".[":
        text = "." + text  # `content[0].text` reads like `$.content[0].text`
    steps: list[Step] = []
    position = 0
    while position < len(text):
        found = _STEP.match(text, position)
        if found is None:
            raise PathError(f'cannot read {text[position:]!r} (use .key, [0] or ["key"])')
        key, index, quoted = found.groups()
        steps.append(int(index) if index is not None else key if key is not None else json.loads(quoted))
        position = found.end()
    return steps


def resolve(value: Any, steps: list[Step]) -> tuple[bool, Any]:
    """(True, the value at the path) or (False, None) when a key or index is not there."""
    for step in steps:
        if isinstance(step, int):
            present = isinstance(value, list) and step < len(value)
        else:
            present = isinstance(value, Mapping) and step in value
        if not present:
            return False, None
        value = value[step]
    return True, value


def display_path(steps: list[Step]) -> str:
    """`structuredContent.temperature`, `content[0].text`; `result` for the whole result."""
    path = ""
    for step in steps:
        path = join_path(path, step)
    return path or "result"
