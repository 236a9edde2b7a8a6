"""Names for copies, shared by every kind of record that can be duplicated (scenarios, scorers)."""

from __future__ import annotations

from collections.abc import Callable


def copy_name(name: str, *, taken: Callable[[str], bool]) -> str:
    """ "Copy of X", or "Copy 2 of X" and so on when that is taken: the name of a duplicate."""
    candidate, n = f"Copy of {name}"[:200], 2
    while taken(candidate):
        candidate, n = f"Copy {n} of {name}"[:200], n + 1
    return candidate
