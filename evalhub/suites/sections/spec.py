"""How a section is declared: its fields, each with a JSON Schema and a default. Django-free."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

REQUIRED = object()  # the default of a field every entry must give

# `${NAME}`: a secret's value is read from that environment variable where it is used; never the secret itself.
REFERENCE_PATTERN = r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}$"
SECRET_REFERENCE: dict[str, Any] = {
    "type": "string",
    "pattern": REFERENCE_PATTERN,
    "description": "A secret, only ever as a reference ${ENV_VAR} to an environment variable (never its value).",
}
NAME: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 200}


@dataclass(frozen=True)
class Field:
    schema: Mapping[str, Any]
    description: str
    default: Any = REQUIRED
    # The model attribute it is stored in when the store maps it generically; None: the store maps it itself.
    attr: str | None = ""
    unordered: bool = False  # a set (tags, attached scorers): compared and exported sorted

    @property
    def required(self) -> bool:
        return self.default is REQUIRED


@dataclass(frozen=True)
class Section:
    key: str  # the top-level key: "servers"
    description: str
    fields: Mapping[str, Field]  # in the order an export writes them; "name" first
    extra_schema: Mapping[str, Any] = field(default_factory=dict)  # rules across fields (if/then…)

    def attr(self, key: str) -> str | None:
        """The model attribute a field maps onto generically, or None when the store maps it itself."""
        declared = self.fields[key].attr
        return key if declared == "" else declared

    def item_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "description": self.description,
            "properties": {
                key: {**spec.schema, "description": spec.description}
                | ({} if spec.required else {"default": spec.default})
                for key, spec in self.fields.items()
            },
            "required": [key for key, spec in self.fields.items() if spec.required],
            "additionalProperties": False,
        } | dict(self.extra_schema)

    def complete(self, entry: Mapping[str, Any]) -> dict[str, Any]:
        """The entry with every field, defaults filled in, in declaration order: what plans compare."""
        full = {
            key: copy.deepcopy(entry[key]) if key in entry else copy.deepcopy(spec.default)
            for key, spec in self.fields.items()
            if key in entry or not spec.required
        }
        for key, spec in self.fields.items():
            if spec.unordered and isinstance(full.get(key), list):
                full[key] = sorted(full[key])
        return full

    def compact(self, full: Mapping[str, Any]) -> dict[str, Any]:
        """An entry without the fields that hold their default: what an export writes."""
        return {
            key: full[key]
            for key, spec in self.fields.items()
            if key in full and (spec.required or full[key] != spec.default)
        }
