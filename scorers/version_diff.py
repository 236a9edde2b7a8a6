"""A scorer version side by side with another, line by line: what the version page shows. Pure: no Django."""

from __future__ import annotations

import difflib
from dataclasses import dataclass


@dataclass(frozen=True)
class DiffLine:
    kind: str  # "same", "added" (only in the newer text) or "removed" (only in the older)
    text: str
    old_number: int | None
    new_number: int | None


def scorer_text(*, kind: str, code: str, system_prompt: str, labels: str, judge_model: str) -> str:
    """What defines a version, as the text that is compared: the code, or a judge's prompt, labels and model."""
    if kind == "code":
        return code
    return f"{system_prompt}\n\n# Labels\n{labels}\n\n# Judge model\n{judge_model or '(the default judge model)'}"


def diff_lines(old: str, new: str) -> list[DiffLine]:
    """Every line of both texts in order, each marked same, removed or added, with its line numbers."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    lines: list[DiffLine] = []
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, old_start, old_end, new_start, new_end in matcher.get_opcodes():
        if tag == "equal":
            lines += [
                DiffLine("same", old_lines[old_start + i], old_start + i + 1, new_start + i + 1)
                for i in range(old_end - old_start)
            ]
            continue
        lines += [DiffLine("removed", old_lines[i], i + 1, None) for i in range(old_start, old_end)]
        lines += [DiffLine("added", new_lines[i], None, i + 1) for i in range(new_start, new_end)]
    return lines
