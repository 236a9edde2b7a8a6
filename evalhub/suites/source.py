"""A YAML document read safely, with the line of every value by JSON pointer. Django-free.

PyYAML's node API (`compose`) keeps each node's position; the safe constructor then builds plain values from the
same nodes, so no tag can instantiate anything. Duplicate keys are errors: YAML silently keeps the last one, which
would hide a typo'd copy of an entry. Keys must be text (JSON's only kind of key), and anchors/aliases are refused:
a suite never needs them, and a few nested aliases expand into billions of values ("billion laughs").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml


class SourceError(Exception):
    """The text is not a YAML document we can read; `line` is 1-based (0 when unknown)."""

    def __init__(self, message: str, line: int = 0, pointer: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.pointer = pointer


@dataclass
class Source:
    data: Any
    lines: dict[str, int] = field(default_factory=dict)  # JSON pointer → 1-based line

    def line_of(self, pointer: str) -> int:
        """The line of the value at `pointer`, or of its nearest ancestor that has one (0 when none)."""
        while True:
            if pointer in self.lines:
                return self.lines[pointer]
            if not pointer:
                return 0
            pointer = pointer.rsplit("/", 1)[0]


def escape(token: str | int) -> str:
    """One JSON pointer reference token (RFC 6901)."""
    return str(token).replace("~", "~0").replace("/", "~1")


def load(text: str) -> Source:
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        raise SourceError(f"not valid YAML: {error.problem or error.context}", mark.line + 1 if mark else 0) from None
    except yaml.YAMLError as error:
        raise SourceError(f"not valid YAML: {error}") from None
    except RecursionError:
        raise SourceError("nested too deeply") from None
    if root is None:
        return Source(data={}, lines={"": 1})
    lines: dict[str, int] = {}
    try:
        _index(root, "", lines, set())
    except RecursionError:
        raise SourceError("nested too deeply") from None
    constructor = yaml.SafeLoader("")
    try:
        data = constructor.construct_document(root)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        raise SourceError(f"not valid YAML: {error}", mark.line + 1 if mark else 0) from None
    return Source(data=data, lines=lines)


def _index(node: yaml.Node, pointer: str, lines: dict[str, int], visited: set[int]) -> None:
    if id(node) in visited:
        raise SourceError(
            "anchors and aliases (&name, *name) are not supported: write the value out", _line(node), pointer
        )
    visited.add(id(node))
    lines[pointer] = _line(node)
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
                if not isinstance(key_node, yaml.ScalarNode):
                    raise SourceError("a key must be text, not a list or mapping", _line(key_node), pointer)
                shown = key_node.value
                raise SourceError(f'the key {shown} is not text: quote it ("{shown}")', _line(key_node), pointer)
            key = str(key_node.value)
            if key in seen:
                raise SourceError(f"duplicate key {key!r}", key_node.start_mark.line + 1, pointer)
            seen.add(key)
            child = f"{pointer}/{escape(key)}"
            _index(value_node, child, lines, visited)
            lines[child] = key_node.start_mark.line + 1  # a key's line is where the reader looks for it
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _index(item, f"{pointer}/{index}", lines, visited)


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def dump(data: Any) -> str:
    """Block-style YAML that keeps key order and writes multi-line text as `|` blocks, so diffs read well."""
    return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=120, default_flow_style=False)


class _Dumper(yaml.SafeDumper):
    pass


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value and all(line == line.rstrip() for line in value.split("\n")):
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _text)
