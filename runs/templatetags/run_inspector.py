"""The run page's readers for recorded values: JSON as a collapsible tree, long text folded behind "show all".

Every value here is untrusted (tool results, model output): it reaches the page only through `format_html` /
`escape`. `data-key` names each collapsible after where it sits in the run, so static/js/run_detail.js can keep
what a reader opened or closed across the page's live refreshes.
"""

from __future__ import annotations

import json
from typing import Any

from django import template
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

register = template.Library()

# Past these, a value is folded: its head is shown and the rest is one click ("show all") away.
FOLD_CHARS = 1200
FOLD_STRING_IN_TREE = 160
FOLD_ITEMS = 50
# Levels of a JSON tree open when the page is loaded; deeper ones start closed.
OPEN_LEVELS = 2
# Objects and arrays drawn as tree nodes per tree; past it a subtree is shown as indented JSON text. A 256 KiB result
# of 2,500 rows would otherwise be 15,000 nodes: 3 MB of page and a second to draw, on every live refresh.
TREE_NODES = 600


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _copy_button(label: str, attribute: str, value: str) -> SafeString:
    """`attribute` is data-copy (the text itself) or data-json-path (where the value sits in its tree)."""
    return format_html(
        '<button type="button" class="copy-button" title="Copy to the clipboard" {}="{}">{}</button>',
        attribute,
        value,
        label,
    )


def _joined(pieces: list[SafeString]) -> SafeString:
    return format_html_join("", "{}", ((piece,) for piece in pieces))


def _scalar(value: Any, key: str) -> SafeString:
    if isinstance(value, str):
        if len(value) <= FOLD_STRING_IN_TREE:
            return format_html('<span class="json-string">"{}"</span>', value)
        return format_html(
            '<details class="fold" data-key="{}"><summary><span class="json-string fold-head">"{}…"</span> '
            '<span class="fold-more">show all {} characters</span></summary><pre class="json-string-full">{}</pre>'
            "</details>",
            key,
            value[:FOLD_STRING_IN_TREE],
            f"{len(value):,}",
            value,
        )
    if value is None:
        return format_html('<span class="json-null">{}</span>', "null")
    if isinstance(value, bool):
        return format_html('<span class="json-bool">{}</span>', "true" if value else "false")
    if isinstance(value, (int, float)):
        return format_html('<span class="json-number">{}</span>', _compact(value))
    return format_html('<span class="json-string">{}</span>', _compact(value))


class _Budget:
    def __init__(self) -> None:
        self.left = TREE_NODES


def _node(value: Any, path: list[Any], key: str, depth: int, budget: _Budget) -> SafeString:
    if not isinstance(value, (dict, list)):
        return _scalar(value, f"{key}:{_compact(path)}")
    items = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
    if not items:
        return format_html('<span class="json-empty">{}</span>', "{}" if isinstance(value, dict) else "[]")
    budget.left -= 1
    if budget.left < 0:
        return format_html(
            '<details class="fold" data-key="{}:{}"><summary class="fold-more">{} {} as JSON text</summary>'
            '<pre class="json-string-full">{}</pre></details>',
            key,
            _compact(path),
            len(items),
            "keys" if isinstance(value, dict) else "items",
            json.dumps(value, indent=2, ensure_ascii=False, default=str),
        )
    size = (
        f"{len(items)} key{'s' if len(items) != 1 else ''}"
        if isinstance(value, dict)
        else f"{len(items)} item{'s' if len(items) != 1 else ''}"
    )
    brace = "{…}" if isinstance(value, dict) else "[…]"
    in_object = isinstance(value, dict)
    body = _rows(items[:FOLD_ITEMS], path, key, depth, in_object, budget)
    if len(items) > FOLD_ITEMS:
        body = format_html(
            '{}<li><details class="fold" data-key="{}:{}:more"><summary class="fold-more">show all {} {}</summary>'
            '<ul class="json-children">{}</ul></details></li>',
            body,
            key,
            _compact(path),
            len(items),
            "keys" if in_object else "items",
            _rows(items[FOLD_ITEMS:], path, key, depth, in_object, budget),
        )
    return format_html(
        '<details class="json-node" data-key="{}:{}"{}><summary><span class="json-brace">{}</span> '
        '<span class="json-size">{}</span> {}</summary><ul class="json-children">{}</ul></details>',
        key,
        _compact(path),
        format_html(" {}", "open") if depth < OPEN_LEVELS else "",
        brace,
        size,
        _copy_button("copy", "data-json-path", _compact(path)),
        body,
    )


def _rows(
    items: list[tuple[Any, Any]], path: list[Any], key: str, depth: int, in_object: bool, budget: _Budget
) -> SafeString:
    """Rows while the tree's budget lasts; the items left after it as one block of JSON text."""
    rows = []
    for index, (name, child) in enumerate(items):
        if budget.left <= 0:
            rest = dict(items[index:]) if in_object else [child for _, child in items[index:]]
            rows.append(
                format_html(
                    '<li><details class="fold" data-key="{}:{}:{}"><summary class="fold-more">{} more as JSON text'
                    '</summary><pre class="json-string-full">{}</pre></details></li>',
                    key,
                    _compact(path),
                    index,
                    len(items) - index,
                    json.dumps(rest, indent=2, ensure_ascii=False, default=str),
                )
            )
            break
        rows.append(_row(name, child, [*path, name], key, depth + 1, in_object, budget))
    return _joined(rows)


def _row(name: Any, child: Any, path: list[Any], key: str, depth: int, in_object: bool, budget: _Budget) -> SafeString:
    label = (
        format_html('<span class="json-key">{}</span>: ', name)
        if in_object
        else format_html('<span class="json-index">{}</span>: ', name)
    )
    return format_html("<li>{}{}</li>", label, _node(child, path, key, depth, budget))


def _key(parts: tuple[Any, ...]) -> str:
    return "-".join(str(part) for part in parts)


@register.simple_tag
def json_tree(value: Any, *key_parts: Any) -> SafeString:
    """`value` as a tree of <details>, with a button copying the whole value and one per object or array.

    `key_parts` name the tree in the page (joined with "-"), e.g. `call-3 args`."""
    key = _key(key_parts)
    return format_html(
        '<div class="json-tree" data-json="{}">{}</div>',
        _compact(value),
        _node(value, [], key, 0, _Budget()),
    )


@register.simple_tag
def folded_text(text: str, *key_parts: Any, css: str = "prose") -> SafeString:
    """Text in a <pre>; past FOLD_CHARS its head, with the whole of it behind "show all"."""
    text, key = str(text), _key(key_parts)
    if len(text) <= FOLD_CHARS:
        return format_html('<pre class="{}">{}</pre>', css, text)
    return format_html(
        '<details class="fold fold-text" data-key="{}"><summary><pre class="{} fold-head">{}…</pre>'
        '<span class="fold-more">show all {} characters</span></summary><pre class="{}">{}</pre></details>',
        key,
        css,
        text[:FOLD_CHARS],
        f"{len(text):,}",
        css,
        text,
    )


@register.simple_tag
def copy_button(text: Any, label: str = "Copy") -> SafeString:
    """A button that copies `text` (JSON of any other value)."""
    value = text if isinstance(text, str) else json.dumps(text, indent=2, ensure_ascii=False, default=str)
    return _copy_button(label, "data-copy", value)


@register.filter
def call_label(labels: dict[int, str] | None, index: int) -> str:
    """`call 1.1`: the label the transcript gives the call at allToolCalls `index` (runs/code_mode/numbering.py)."""
    return f"call {(labels or {}).get(index, index + 1)}"


@register.filter
def compact_json(value: Any) -> str:
    """One line of JSON, for a call's arguments in its heading."""
    return _compact(value)
