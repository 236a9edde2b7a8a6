"""A variant of a tool surface, and what it makes of a server's tool list. Pure: no Django, no I/O.

A variant is JSON: `{"name": "terse-weather", "tools": {"get_weather": {"description": "…", "input_schema":
{…}}}, "hide": ["book_flight"], "rename": {"search_flights": "find_flights"}}`. Tools are named by their real
names everywhere in it. The model is offered the variant's surface; a call it makes by an offered name is made
to the real tool by its real name, with the model's arguments unchanged (the real server still validates them
against its own schema). A hidden tool, or a renamed tool's old name, is not on the surface: calling it is an
unknown tool, as for any name the model invents.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

MAX_NAME = 60
# What MCP's tool-name guidance and the OpenAI function-name rule both accept.
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_TOOL_KEYS = {"description", "input_schema"}
_KEYS = {"name", "tools", "hide", "rename"}
# The column of the server as it is: no variant name may take it.
BASELINE = ""
RESERVED = {"baseline", "as served", "current"}


class VariantInvalid(ValueError):
    """The variant cannot be used; the message names the place (`variants[0].rename.x`) and what to do."""


@dataclass(frozen=True)
class Variant:
    name: str
    tools: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    hide: tuple[str, ...] = ()
    rename: Mapping[str, str] = field(default_factory=dict)

    def record(self) -> dict[str, Any]:
        """As stored with the experiment and each trial's settings (what `parse_variant` reads back)."""
        return {
            "name": self.name,
            "tools": {name: dict(change) for name, change in self.tools.items()},
            "hide": list(self.hide),
            "rename": dict(self.rename),
        }

    @property
    def named_tools(self) -> set[str]:
        return {*self.tools, *self.hide, *self.rename}


def parse_variant(data: Any, *, where: str = "variant") -> Variant:
    """A Variant from its JSON; VariantInvalid names the place at fault."""
    if not isinstance(data, dict):
        raise VariantInvalid(f"{where}: expected an object with a name and tools, hide or rename.")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise VariantInvalid(f"{where}.{unknown[0]}: not a variant field; use name, tools, hide and rename.")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > MAX_NAME:
        raise VariantInvalid(f"{where}.name: give the variant a name of 1 to {MAX_NAME} characters.")
    if name.strip().lower() in RESERVED:
        raise VariantInvalid(f"{where}.name: “{name.strip()}” names the server as it is; choose another name.")
    tools = _object(data.get("tools", {}), f"{where}.tools")
    for tool, change in tools.items():
        place = f"{where}.tools.{tool}"
        if not isinstance(change, dict) or not change:
            raise VariantInvalid(f"{place}: expected an object with a description and/or an input_schema.")
        if extra := sorted(set(change) - _TOOL_KEYS):
            raise VariantInvalid(f"{place}.{extra[0]}: only description and input_schema can be changed.")
        if "description" in change and not isinstance(change["description"], str):
            raise VariantInvalid(f"{place}.description: expected text.")
        schema = change.get("input_schema")
        if "input_schema" in change and (not isinstance(schema, dict) or schema.get("type", "object") != "object"):
            raise VariantInvalid(f'{place}.input_schema: expected a JSON Schema object ({{"type": "object", …}}).')
    hide = data.get("hide", [])
    if not isinstance(hide, list) or not all(isinstance(item, str) for item in hide):
        raise VariantInvalid(f"{where}.hide: expected a list of tool names.")
    rename = _object(data.get("rename", {}), f"{where}.rename")
    for old, new in rename.items():
        if not isinstance(new, str) or not _TOOL_NAME.match(new):
            raise VariantInvalid(
                f"{where}.rename.{old}: the new name must be 1 to 64 letters, digits, “_”, “-” or “.”."
            )
        if old in hide:
            raise VariantInvalid(f"{where}.rename.{old}: this tool is hidden too; rename it or hide it.")
    return Variant(name=name.strip(), tools=tools, hide=tuple(dict.fromkeys(hide)), rename=rename)


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise VariantInvalid(f"{where}: expected an object keyed by the server's tool names.")
    return value


def check_against(variant: Variant, tool_names: Sequence[str], *, where: str = "variant") -> None:
    """Every tool the variant names must be one of the server's, and the surface must keep names unique."""
    known = set(tool_names)
    for section in ("tools", "hide", "rename"):
        for name in getattr(variant, section):
            if name not in known:
                listed = ", ".join(sorted(known)) or "none"
                raise VariantInvalid(f"{where}.{section}.{name}: the server has no such tool; its tools: {listed}.")
    offered = [variant.rename.get(name, name) for name in tool_names if name not in variant.hide]
    clashes = sorted({name for name in offered if offered.count(name) > 1})
    if clashes:
        raise VariantInvalid(f"{where}.rename: two tools would both be offered as “{clashes[0]}”.")


@dataclass(frozen=True)
class Surface:
    """What the model is offered (`tools`, MCP tool definitions under their offered names) and, per offered name,
    the server's real tool (`real`)."""

    tools: list[dict[str, Any]]
    real: dict[str, dict[str, Any]]

    def real_tool(self, offered_name: str) -> dict[str, Any] | None:
        """The server's tool a call by `offered_name` goes to; None when no offered tool has that name."""
        return self.real.get(offered_name)


def apply_variant(variant: Variant | None, tools: Sequence[Mapping[str, Any]]) -> Surface:
    """The surface `variant` makes of the server's `tools`; without a variant, the tools as they are.

    A tool the variant names that the server no longer has is left out of the change (checked when the experiment
    starts: `check_against`); every other field of a tool (title, annotations, outputSchema) is kept."""
    offered: list[dict[str, Any]] = []
    real: dict[str, dict[str, Any]] = {}
    for tool in tools:
        name = str(tool["name"])
        if variant is not None and name in variant.hide:
            continue
        shown = dict(tool)
        if variant is not None:
            change = variant.tools.get(name, {})
            if "description" in change:
                shown["description"] = change["description"]
            if "input_schema" in change:
                shown["inputSchema"] = change["input_schema"]
            shown["name"] = variant.rename.get(name, name)
        offered.append(shown)
        real[shown["name"]] = dict(tool)
    return Surface(tools=offered, real=real)


def surface_record(tools: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The server's surface written as a variant (every tool's description and input schema): what the form's
    editor starts from, so a user changes a copy of what is there."""
    return {
        "name": "my-variant",
        "tools": {
            str(tool["name"]): {
                "description": str(tool.get("description") or ""),
                "input_schema": tool.get("inputSchema") or {"type": "object"},
            }
            for tool in tools
        },
        "hide": [],
        "rename": {},
    }


def minimal(variant: Variant, tools: Sequence[Mapping[str, Any]]) -> Variant:
    """The variant without its no-op entries (a tool "changed" to what the server already says), so a form
    pre-filled with the whole surface stores only what the user changed, and the diff shows only that."""
    by_name = {str(tool["name"]): tool for tool in tools}
    changed: dict[str, dict[str, Any]] = {}
    for name, change in variant.tools.items():
        tool = by_name.get(name)

        def current(key: str, tool: Mapping[str, Any] | None = tool) -> Any:
            if tool is None:
                return None
            if key == "description":
                return str(tool.get("description") or "")
            return tool.get("inputSchema") or {"type": "object"}

        kept = {key: value for key, value in change.items() if value != current(key)}
        if kept:
            changed[name] = kept
    return Variant(name=variant.name, tools=changed, hide=variant.hide, rename=dict(variant.rename))


def surface_text(tools: Sequence[Mapping[str, Any]]) -> str:
    """What the model is offered, as text a line diff reads well: per tool its name, description and input
    schema (indented JSON, keys sorted)."""
    blocks = []
    for tool in tools:
        schema = json.dumps(tool.get("inputSchema") or {"type": "object"}, indent=2, sort_keys=True, ensure_ascii=False)
        description = str(tool.get("description") or "").strip() or "(no description)"
        blocks.append(
            f"{tool['name']}\n  {description.replace(chr(10), chr(10) + '  ')}\n  " + schema.replace("\n", "\n  ")
        )
    return "\n\n".join(blocks)


def variant_from_text(text: str, tools: Sequence[Mapping[str, Any]], *, where: str = "variant") -> Variant | None:
    """The variant a user wrote in the editor (JSON), reduced to what it changes of `tools`; None when it changes
    nothing (the editor starts as the surface itself). VariantInvalid names the line of a JSON syntax error."""
    if not text.strip():
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise VariantInvalid(f"{where}: not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}.") from None
    variant = minimal(parse_variant(data, where=where), tools)
    check_against(variant, [str(tool["name"]) for tool in tools], where=where)
    return variant if variant.named_tools else None
