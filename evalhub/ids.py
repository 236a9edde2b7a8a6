"""Ids that arrive as text (query parameters, form fields, headers, the CLI's flags): what counts as one. Pure.

`str.isdigit` is not enough: it accepts digits like "²" that `int()` refuses, and any number of digits, though
`int()` refuses more than 4,300 and the database's ids stop at 2**63 - 1. Every place that reads an id from text
asks here, so none of them turns such input into a 500.
"""

from __future__ import annotations

# The largest id a database row can have (a signed 64-bit integer on PostgreSQL and SQLite).
MAX_ID = 2**63 - 1
ACCEPTED = f"ASCII digits 0-9, at most {MAX_ID}"


def parse_id(text: str) -> int | None:
    """The id `text` spells (0 included), or None when it spells none."""
    if not text.isascii() or not text.isdigit() or len(text) > len(str(MAX_ID)):
        return None
    value = int(text)
    return value if value <= MAX_ID else None
