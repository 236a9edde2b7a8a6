"""`make_plan`: what applying a suite would do — create, change (field by field) and, with prune, delete. Django-free.

Both sides are entries in the file's shape with every field filled in (`Section.complete`), so a plan is a plain
comparison and applying the same file twice plans nothing the second time. Secrets only ever appear as `${VAR}`
references on both sides, so a plan cannot show one. A change that moves a server or provider to another scheme,
host or port says that its stored secrets are dropped: secrets belong to the address they were entered for (the
servers' and providers' forms follow the same rule).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from evalhub.egress import origin
from evalhub.suites.sections import SECTIONS
from evalhub.suites.sections.spec import REFERENCE_PATTERN

Action = Literal["create", "change", "delete"]
_SHOWN = 80  # characters of a value a plan line shows
_CONTEXT = 20  # characters kept before the first difference of two long texts
SINGULAR = {"servers": "server", "providers": "provider", "scorers": "scorer", "scenarios": "scenario"}
URL_KEYS = {"servers": "url", "providers": "base_url"}  # the address a record's secrets are sent to
DROPPED = "dropped (the URL moves to another address): the file's references are new"


@dataclass(frozen=True)
class FieldChange:
    key: str
    before: Any
    after: Any

    def __str__(self) -> str:
        before, after = self.before, self.after
        if isinstance(before, str) and isinstance(after, str):
            # Long texts that differ late would show as two equal cut heads: start both near the first difference.
            start = _first_difference(before, after) - _CONTEXT
            if start > 0 and max(len(before), len(after)) > _SHOWN:
                before, after = "…" + before[start:], "…" + after[start:]
        return f"{self.key}: {shown(before)} → {shown(after)}"


@dataclass(frozen=True)
class Step:
    action: Action
    section: str
    name: str
    index: int | None = None  # the entry's index in the file (None for deletions)
    changes: tuple[FieldChange, ...] = ()

    def __str__(self) -> str:
        sign = {"create": "+", "change": "~", "delete": "-"}[self.action]
        head = f"{sign} {self.action} {SINGULAR[self.section]} {json.dumps(self.name, ensure_ascii=False)}"
        return "\n".join([head, *(f"    {change}" for change in self.changes)])

    def to_dict(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "section": self.section,
            "name": self.name,
            "changes": [{"field": c.key, "before": c.before, "after": c.after} for c in self.changes],
        }


@dataclass(frozen=True)
class Plan:
    steps: tuple[Step, ...] = field(default_factory=tuple)

    def count(self, action: Action) -> int:
        return sum(1 for step in self.steps if step.action == action)

    @property
    def is_empty(self) -> bool:
        return not self.steps

    def summary(self) -> str:
        if self.is_empty:
            return "No changes: EvalHub already matches the file."
        return (
            f"Plan: {self.count('create')} to create, {self.count('change')} to change, "
            f"{self.count('delete')} to delete."
        )

    def __str__(self) -> str:
        return "\n".join([*(str(step) for step in self.steps), self.summary()])

    def to_dict(self) -> dict[str, Any]:
        return {
            "summary": self.summary(),
            "create": self.count("create"),
            "change": self.count("change"),
            "delete": self.count("delete"),
            "steps": [step.to_dict() for step in self.steps],
        }


def shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def address_changed(before: str, after: str) -> bool:
    """Whether a URL moves to another (scheme, host, port): the secrets stored for the old one must not follow."""
    return origin(before) != origin(after)


def moves_secrets(key: str, before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Whether applying `after` over the stored `before` (complete entries of section `key`) drops its secrets."""
    url = URL_KEYS.get(key)
    return url is not None and address_changed(str(before.get(url) or ""), str(after.get(url) or ""))


def secret_labels(entry: Mapping[str, Any]) -> list[str]:
    """The secrets a complete server or provider entry holds (each written as a `${VAR}` reference)."""
    labels = [key for key in ("bearer_token", "api_key") if entry.get(key)]
    for key in ("env", "headers"):
        values = entry.get(key) or {}
        labels += [f"{key} {name}" for name, value in values.items() if re.fullmatch(REFERENCE_PATTERN, str(value))]
    return labels


def _first_difference(before: str, after: str) -> int:
    shorter = min(len(before), len(after))
    return next((i for i in range(shorter) if before[i] != after[i]), shorter)


def field_changes(key: str, before: Any, after: Any) -> list[FieldChange]:
    """How `before` became `after`: one change when both fit on a plan line, else followed down into the objects
    and lists to the parts that differ (`expectations[1].args.city`), so a plan never shows only two equal heads
    cut before the change. A key or item on one side only is `null` on the other."""
    if before == after:
        return []
    fits = max(len(json.dumps(before, default=str)), len(json.dumps(after, default=str))) <= _SHOWN
    if not fits and isinstance(before, Mapping) and isinstance(after, Mapping):
        names = dict.fromkeys([*before, *after])
        return [c for name in names for c in field_changes(f"{key}.{name}", before.get(name), after.get(name))]
    if not fits and isinstance(before, list) and isinstance(after, list):
        length = max(len(before), len(after))
        items = [(before[i] if i < len(before) else None, after[i] if i < len(after) else None) for i in range(length)]
        return [c for i, (old, new) in enumerate(items) for c in field_changes(f"{key}[{i}]", old, new)]
    return [FieldChange(key, before, after)]


def make_plan(current: Mapping[str, Mapping[str, Mapping[str, Any]]], data: Mapping[str, Any], *, prune: bool) -> Plan:
    """`current`: {section: {name: complete entry}} as stored; `data`: the validated file."""
    steps: list[Step] = []
    for key, section in SECTIONS.items():
        stored = current.get(key, {})
        wanted = data.get(key) or []
        for index, entry in enumerate(wanted):
            desired = section.complete(entry)
            before = stored.get(desired["name"])
            if before is None:
                steps.append(Step("create", key, desired["name"], index))
                continue
            changes = tuple(
                change for name, value in desired.items() for change in field_changes(name, before.get(name), value)
            )
            if moves_secrets(key, before, desired) and (labels := secret_labels(before)):
                changes += (FieldChange("secrets", labels, DROPPED),)
            if changes:
                steps.append(Step("change", key, desired["name"], index, changes))
        # Only sections the file has: a file without `providers:` never deletes a provider.
        if prune and key in data:
            names = {entry["name"] for entry in wanted}
            steps += [Step("delete", key, name) for name in sorted(stored) if name not in names]
    return Plan(tuple(steps))
