"""How much of a run is kept: caps per tool result, per model message and per run, and on what the model reads.

A tool may answer 20 MB and a model 50 MB. Kept whole, they make the run's row, its page, its API answer, every
scorer's input and the next model call as big. Past a cap the head is kept and the rest is replaced by
"…truncated N bytes"; the item records the full size and the SHA-256 of the full value next to it (`Cut`), so
two runs can still be told apart. Sizes are bytes as stored: compact JSON, text as a JSON string. The
README's "Recorded sizes" section documents these numbers: change both together.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

# Each tool result as recorded (its content blocks and structuredContent together).
TOOL_RESULT_BYTES = 256 * 1024
# Each model message: its text, and the arguments of each tool call it makes.
MODEL_MESSAGE_BYTES = 256 * 1024
# A whole run, counting every copy it stores (a tool result is in the transcript and in both tool-call lists).
RUN_BYTES = 4 * 1024 * 1024
# What the model reads back of one tool result.
TOOL_CONTENT_TO_MODEL_BYTES = 64 * 1024
# Once the run's cap is reached, each further item still keeps this much, enough to see what it was; names
# (tool names, model names, finish reasons) are cut to it too.
FLOOR_BYTES = 1024
# Room for the marker itself: "…truncated 18446744073709551616 bytes" is 39 bytes.
_MARKER_ROOM = 48
# How often a structured value is shrunk with a smaller budget before its JSON text is cut instead.
_SHRINK_TRIES = 4


@dataclass(frozen=True)
class Capped:
    value: Any
    # Bytes of `value` as stored.
    size: int
    # {"bytes": size of the full value, "sha256": its hash}, or None when nothing was cut.
    cut: dict[str, Any] | None


def marker(cut_bytes: int) -> str:
    return f"…truncated {cut_bytes} bytes"


def compact_json(value: Any) -> bytes:
    """The bytes sizes and hashes of structured values are measured on."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str).encode()


def cap_text(text: str, limit: int) -> Capped:
    """`text` when it fits in `limit` bytes; else its head and the marker, within `limit`.

    Text is measured as it is stored in the run's JSON: a quoted, escaped string. The cut's `bytes` and the
    marker count UTF-8 bytes of the text itself.
    """
    size = _size(text)
    if size <= limit:
        return Capped(text, size, None)
    data = text.encode()
    value = _cut_json_string(data, limit)
    return Capped(value, _size(value), {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()})


def cap_json(value: Any, limit: int) -> Capped:
    """`value` when its compact JSON fits in `limit` bytes; else its head, structure kept, within `limit`.

    Strings keep their head and a marker; dictionaries keep every key, values past the budget becoming markers;
    lists keep their first items and one marker for the rest. When even that does not fit (a dictionary with a
    million keys), the value becomes the head of its JSON text, a string.
    """
    data = compact_json(value)
    if len(data) <= limit:
        return Capped(value, len(data), None)
    cut = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    budget = limit - _MARKER_ROOM
    for _ in range(_SHRINK_TRIES):
        shrunk, _used = _shrink(value, budget)
        size = len(compact_json(shrunk))
        if size <= limit:
            return Capped(shrunk, size, cut)
        budget //= 2
    text = _cut_json_string(data, limit)
    return Capped(text, _size(text), cut)


def _cut(data: bytes, limit: int) -> str:
    keep = max(limit - _MARKER_ROOM, 0)
    # A multi-byte character cut in the middle is dropped whole, never left as half a character.
    head = data[:keep].decode(errors="ignore")
    return head + marker(len(data) - len(head.encode()))


def _cut_json_string(data: bytes, limit: int) -> str:
    """The head of `data` and the marker, as a string whose JSON (quoted, escaped) fits in `limit` bytes."""
    keep = limit
    # Escapes (newlines, quotes) make the JSON longer than the text: cut again by what is over.
    while (size := _size(text := _cut(data, keep))) > limit and keep > _MARKER_ROOM:
        keep -= size - limit
    return text


def _size(value: Any) -> int:
    return len(compact_json(value))


def _shrink(value: Any, budget: int) -> tuple[Any, int]:
    """`value` cut to about `budget` bytes of compact JSON, head first; and the bytes it then takes."""
    if isinstance(value, str):
        size = _size(value)
        if size <= budget:
            return value, size
        text = _cut_json_string(value.encode(), max(budget, 0))
        return text, _size(text)
    if isinstance(value, dict):
        kept: dict[str, Any] = {}
        used = 2
        for key, item in value.items():
            used += _size(str(key)) + 2
            kept[key], size = _shrink(item, budget - used)
            used += size
        return kept, used
    if isinstance(value, list):
        items: list[Any] = []
        used = 2
        for index, item in enumerate(value):
            if used >= budget:
                rest = marker(_size(value[index:]) - 2)
                items.append(rest)
                return items, used + _size(rest) + 1
            small, size = _shrink(item, budget - used)
            items.append(small)
            used += size + 1
        return items, used
    return value, _size(value)
