"""An mcptest file read as mcptest reads it: YAML 1.2, with the line of every value by JSON pointer. Django-free.

mcptest's loader is YAML 1.2 (serde_yaml): `yes:`/`no:` (a decision tree's branches) and `on`/`off` are text, not
booleans as in PyYAML's YAML 1.1, and a date-like `2025-11-25` is text too (1.2's core schema has no timestamps).
ruamel.yaml reads 1.2; its round-trip loader keeps each value's position. The suite file's own rules hold here
too (`evalhub.suites.source`): duplicate keys, keys that are not text, and anchors/aliases are refused with the
place, and the result is plain dicts, lists and scalars.
"""

from __future__ import annotations

import re
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import DuplicateKeyError, RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from evalhub.suites.source import Source, SourceError, escape


class _Constructor(RoundTripConstructor):
    pass


# YAML 1.2's core schema has no timestamp: the text stays as written.
_Constructor.add_constructor("tag:yaml.org,2002:timestamp", RoundTripConstructor.construct_yaml_str)


def _reader() -> YAML:
    yaml = YAML(typ="rt", pure=True)
    yaml.version = (1, 2)
    yaml.Constructor = _Constructor
    return yaml


def load_mcptest(text: str) -> Source:
    """The file's data (plain Python values) and the line of each pointer; raises SourceError naming the place."""
    try:
        root = _reader().load(text)
    except DuplicateKeyError as error:
        # Its message repeats both values: a secret must not be echoed back, so only the key is named.
        mark, key = error.problem_mark, re.match(r'found duplicate key "(.*?)" with value', error.problem or "")
        raise SourceError(f"duplicate key {key.group(1) if key else ''!r}", mark.line + 1 if mark else 0) from None
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        raise SourceError(f"not valid YAML: {error.problem or error.context}", mark.line + 1 if mark else 0) from None
    except YAMLError as error:
        raise SourceError(f"not valid YAML: {error}") from None
    except RecursionError:
        raise SourceError("nested too deeply") from None
    lines: dict[str, int] = {"": 1}
    try:
        data = _plain(root, "", lines, set()) if root is not None else {}
    except RecursionError:
        raise SourceError("nested too deeply") from None
    return Source(data=data, lines=lines)


def _plain(value: Any, pointer: str, lines: dict[str, int], seen: set[int]) -> Any:
    if isinstance(value, CommentedMap | CommentedSeq):
        if id(value) in seen:
            line = lines.get(pointer, 0)
            raise SourceError(
                "anchors and aliases (&name, *name) are not supported: write the value out", line, pointer
            )
        seen.add(id(value))
    if isinstance(value, CommentedMap):
        out = {}
        for key in value:
            line = value.lc.key(key)[0] + 1
            if not isinstance(key, str):
                raise SourceError(f'the key {key} is not text: quote it ("{key}")', line, pointer)
            child = f"{pointer}/{escape(key)}"
            lines[child] = line
            out[str(key)] = _plain(value[key], child, lines, seen)
        return out
    if isinstance(value, CommentedSeq):
        items = []
        for index, item in enumerate(value):
            child = f"{pointer}/{index}"
            lines[child] = value.lc.item(index)[0] + 1
            items.append(_plain(item, child, lines, seen))
        return items
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return str(value)
