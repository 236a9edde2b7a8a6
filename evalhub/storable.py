"""Values PostgreSQL cannot store: NaN and ±Infinity in JSON, and NUL characters in any text.

Python's json module reads and writes NaN, Infinity and -Infinity (and reads 1e999 as infinity), so they arrive
from MCP servers, models and API clients; PostgreSQL's jsonb refuses them, and no PostgreSQL text holds a NUL.
SQLite stores both, so only PostgreSQL failed. Input refuses them (the API's parser, the JSON form field); what a
run records keeps them as text and says where (runs/recorder.py). Django-free.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

NUL = "\x00"


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
    text reads like what was sent); NUL characters in strings and keys become U+FFFD. Unchanged parts are the
    same objects, so a clean value costs one walk and no copy.
    """
    found: list[Replaced] = []
    return _walk(value, "", found), found


def _walk(value: Any, where: str, found: list[Replaced]) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        word = "NaN" if math.isnan(value) else "Infinity" if value > 0 else "-Infinity"
        found.append(Replaced(where or "(root)", word))
        return word
    if isinstance(value, str):
        if NUL not in value:
            return value
        found.append(Replaced(where or "(root)", "NUL"))
        return value.replace(NUL, "\ufffd")
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
    if problem.was == "NUL":
        return f"{problem.path}: must not contain NUL (\\u0000) characters."
    return (
        f"{problem.path}: {problem.was} is not a JSON number; send a finite number, null, or the text "
        f'"{problem.was}" as a string.'
    )
