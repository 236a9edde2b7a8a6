"""The import report: every item of an mcptest file imported exactly, imported with a named approximation, or
refused with a reason, and how many of each. Django-free.

Items are what a reader of the file counts: each server, variable, provider, test (tool, agent, eval…), each
assertion and each judged metric, and each section or key that is refused. A note belongs to the nearest item at or
above its pointer: an "approximated" note makes that item approximated; an "unsupported" note at an item refuses it,
and one below an item (a key of a test: `/agents/0/inject`) is a refused item of its own that leaves the test
imported, approximated (it runs without that key).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from evalhub.suites.mcptest.expect import Note

KINDS = ("exact", "approximated", "refused")


@dataclass(frozen=True)
class Counts:
    exact: int
    approximated: int
    refused: int

    def to_dict(self) -> dict[str, int]:
        return {"exact": self.exact, "approximated": self.approximated, "refused": self.refused}

    def __str__(self) -> str:
        total = self.exact + self.approximated + self.refused
        return (
            f"{total} item(s): {self.exact} imported exactly, {self.approximated} imported with an approximation, "
            f"{self.refused} refused."
        )


def classify(items: Iterable[str], notes: Iterable[Note]) -> dict[str, str]:
    """Item pointer → "exact", "approximated" or "refused"."""
    kinds = dict.fromkeys(items, "exact")
    for note in notes:
        if note.status == "unsupported":
            owner = _owner(note.pointer, kinds, strict=True)
            kinds[note.pointer] = "refused"
            if owner is not None and kinds[owner] == "exact":
                kinds[owner] = "approximated"
    for note in notes:
        if note.status == "approximated":
            owner = _owner(note.pointer, kinds, strict=False)
            if owner is not None and kinds[owner] == "exact":
                kinds[owner] = "approximated"
    return kinds


def count(kinds: dict[str, str]) -> Counts:
    values = list(kinds.values())
    return Counts(*(values.count(kind) for kind in KINDS))


def _owner(pointer: str, kinds: dict[str, str], *, strict: bool) -> str | None:
    """The nearest item above `pointer` (or at it, unless `strict`)."""
    current = pointer if not strict else pointer.rsplit("/", 1)[0]
    while True:
        if current in kinds:
            return current
        if not current:
            return None
        current = current.rsplit("/", 1)[0]
