"""Fingerprints and diffs of a server's tool list, to notice when a server changed between runs."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# The fields that define a tool for an agent; a change in any of them can change a run's outcome.
COMPARED_FIELDS: tuple[str, ...] = ("title", "description", "inputSchema", "outputSchema", "annotations")


def _canonical(tools: Sequence[Mapping[str, Any]]) -> str:
    ordered = sorted(({"name": t["name"], **{f: t.get(f) for f in COMPARED_FIELDS}} for t in tools), key=_name)
    return json.dumps(ordered, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _name(tool: Mapping[str, Any]) -> str:
    return str(tool["name"])


def tools_hash(tools: Sequence[Mapping[str, Any]]) -> str:
    """sha256 hex of the tools as canonical JSON: keys sorted, tools sorted by name, absent fields as null.

    Independent of list order, dict key order and transport, so the same server hashes alike over stdio
    and HTTP.
    """
    return hashlib.sha256(_canonical(tools).encode("utf-8")).hexdigest()


@dataclass
class ToolsDiff:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    # tool name -> the COMPARED_FIELDS that differ, in that order
    changed: dict[str, list[str]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def summary(self) -> str:
        """E.g. "+1 added, -2 removed, 1 description changed, 2 inputSchema changed", or "no changes"."""
        parts: list[str] = []
        if self.added:
            parts.append(f"+{len(self.added)} added")
        if self.removed:
            parts.append(f"-{len(self.removed)} removed")
        for name in COMPARED_FIELDS:
            count = sum(name in fields for fields in self.changed.values())
            if count:
                parts.append(f"{count} {name} changed")
        return ", ".join(parts) or "no changes"

    def to_dict(self) -> dict[str, Any]:
        return {"added": self.added, "removed": self.removed, "changed": self.changed, "summary": self.summary()}


def diff_tools(old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]) -> ToolsDiff:
    before = {_name(tool): tool for tool in old}
    after = {_name(tool): tool for tool in new}
    diff = ToolsDiff(
        added=sorted(after.keys() - before.keys()),
        removed=sorted(before.keys() - after.keys()),
    )
    for name in sorted(before.keys() & after.keys()):
        fields = [f for f in COMPARED_FIELDS if _normal(before[name].get(f)) != _normal(after[name].get(f))]
        if fields:
            diff.changed[name] = fields
    return diff


def _normal(value: Any) -> str:
    # Compare as canonical JSON so key order inside schemas is not a change.
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
