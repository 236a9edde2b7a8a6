"""Values PostgreSQL cannot store: NaN and ±Infinity in JSON, and NUL characters and lone surrogates in any text.

Python's json module reads and writes NaN, Infinity and -Infinity (and reads 1e999 as infinity), so they arrive
from MCP servers, models and API clients; PostgreSQL's jsonb refuses them, and no PostgreSQL text holds a NUL.
SQLite stores both, so only PostgreSQL failed. A lone surrogate (U+D800 to U+DFFF on its own: JSON's "\\ud800" and
YAML's escapes allow it) is no Unicode text at all, and no database driver can encode it. Input refuses them (the API's
parser, the JSON form field, suite files); what a run records keeps them as text and says where (runs/recorder.py).
Django-free.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, NamedTuple

NUL = "\x00"
_TEXT_PROBLEM = re.compile("[\x00\ud800-\udfff]")  # in a Python str, any surrogate code point stands alone


class Replaced(NamedTuple):
    """One value that had to change: where (`expected.temps[2]`, "(root)") and what it was ("NaN", "NUL")."""

    path: str
    was: str

    def under(self, where: str) -> Replaced:
        """The same problem, seen from outside: `mean` under `expected` is `expected.mean`."""
        if self.path == "(root)":
            return self._replace(path=where)
        return self._replace(path=f"{where}{'' if self.path.startswith('[') else '.'}{self.path}")


def storable(value: Any) -> tuple[Any, list[Replaced]]:
    """A copy of `value` that PostgreSQL can store, and what had to change in it.

    NaN, Infinity and -Infinity become those words as strings (the spelling Python's json writes, so the stored
    text reads like what was sent); NUL characters and lone surrogates in strings and keys become U+FFFD.
    Unchanged parts are the same objects, so a clean value costs one pass of json's encoder and no copy.
    """
    if _clean_as_json(value):
        return value, []
    found: list[Replaced] = []
    return _walk(value, "", found), found


def _clean_as_json(value: Any) -> bool:
    """True when `value` is JSON with nothing to replace, found by json's C encoder rather than a walk in Python:
    a run stores every tool list and result through `storable`, nearly always clean (issue 30: the worker's CPU).
    False means "walk it" (a NaN, a NUL, a lone surrogate, a value json cannot write, or text that only looks like
    an escaped NUL): the walk decides."""
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return False
    # The encoder writes a NUL as the escape \u0000 and a lone surrogate as itself.
    return "\\u0000" not in text and _TEXT_PROBLEM.search(text) is None


def unstorable(value: Any) -> str | None:
    """What a number or text holds that cannot be stored ("NaN", "Infinity", "-Infinity", "NUL", "lone
    surrogate"), or None."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
    if isinstance(value, str) and (found := _TEXT_PROBLEM.search(value)):
        return "NUL" if found.group() == NUL else "lone surrogate"
    return None


def _walk(value: Any, where: str, found: list[Replaced]) -> Any:
    if (word := unstorable(value)) is not None:
        found.append(Replaced(where or "(root)", word))
        return word if isinstance(value, float) else _TEXT_PROBLEM.sub("\ufffd", value)
    if isinstance(value, dict):
        changed = False
        copy: dict[Any, Any] = {}
        for key, item in value.items():
            path = f"{where}.{key}" if where else str(key)
            new_key = _walk(key, path, found) if isinstance(key, str) else key
            new_item = _walk(item, path, found)
            changed = changed or new_key is not key or new_item is not item
            copy[new_key] = new_item
        return copy if changed else value
    if isinstance(value, list):
        items = [_walk(item, f"{where}[{index}]", found) for index, item in enumerate(value)]
        return items if any(new is not old for new, old in zip(items, value, strict=True)) else value
    return value


def refusal(problem: Replaced) -> str:
    """Why an input value is refused, for users: where it is and what to send instead."""
    return f"{problem.path}: {advice(problem.was)}"


def advice(was: str) -> str:
    """What to send instead of a value `unstorable` named."""
    if was == "NUL":
        return "must not contain NUL (\\u0000) characters."
    if was == "lone surrogate":
        return "must not contain a lone surrogate (\\ud800-\\udfff), which is not Unicode text."
    return f'{was} is not a JSON number; send a finite number, null, or the text "{was}" as a string.'
