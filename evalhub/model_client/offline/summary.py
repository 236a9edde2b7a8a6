"""Reading tool results back and saying what they were, with their key values."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_ERROR_TEXT = re.compile(r"^\s*(\w*error\b|exception\b|traceback\b|failed\b)|^\s*\w*error:", re.IGNORECASE)
# Plain-text results lose MCP's isError on the way to the model, so their opening words are read instead.
_ERROR_WORDS = re.compile(
    r"\b(error|fail(s|ed|ure)?|not found|no \w+ found|unknown|invalid|cannot|can't|unable to|denied|refused)\b",
    re.IGNORECASE,
)
_MAX_ITEMS = 10


@dataclass(frozen=True)
class ToolResult:
    name: str
    text: str
    value: Any  # the parsed JSON, or None
    is_error: bool


def content_text(content: Any) -> str:
    """A message's content as text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "" if content is None else json.dumps(content, sort_keys=True)


def read_result(name: str, content: Any) -> ToolResult:
    """A tool message as the agent loop sent it. It is an error when it is JSON with `"isError": true` or an
    `"error"` key, or text starting with "Error", "Exception", "Traceback" or "Failed"."""
    text = content_text(content).strip()
    try:
        value: Any = json.loads(text)
    except ValueError:
        value = None
    is_error = bool(_ERROR_TEXT.search(text)) or (value is None and bool(_ERROR_WORDS.search(text[:120])))
    if isinstance(value, dict):
        is_error = is_error or value.get("isError") is True or bool(value.get("error"))
        # An MCP CallToolResult: prefer its structured content, else its text parts.
        if isinstance(value.get("structuredContent"), dict):
            value = value["structuredContent"]
        elif isinstance(value.get("content"), list):
            text = content_text(value["content"]).strip()
            is_error = is_error or bool(_ERROR_TEXT.search(text))
            try:
                value = json.loads(text)
            except ValueError:
                value = None
    return ToolResult(name=name, text=text, value=value, is_error=is_error)


def describe(result: ToolResult) -> str:
    if result.is_error:
        message = result.value.get("error") if isinstance(result.value, dict) else None
        message = message.get("message", message) if isinstance(message, dict) else message
        return f"{result.name} failed: {_clip(str(message or result.text))}"
    if isinstance(result.value, dict | list):
        facts: list[str] = []
        _flatten(result.value, "", facts, depth=0)
        if facts:
            return f"{result.name} returned {', '.join(facts[:_MAX_ITEMS])}"
    return f"{result.name} returned: {_clip(result.text) or '(nothing)'}"


def summarise(results: list[ToolResult]) -> str:
    if not results:
        return ""
    return "Here is what I found. " + " ".join(f"{describe(r)}." for r in results)


def _flatten(value: Any, key: str, facts: list[str], *, depth: int) -> None:
    if isinstance(value, dict):
        if depth >= 3:
            return
        for sub_key, sub in value.items():
            _flatten(sub, f"{sub_key}", facts, depth=depth + 1)
    elif isinstance(value, list):
        items = [_one_line(item) for item in value[:3]]
        more = f" and {len(value) - 3} more" if len(value) > 3 else ""
        label = f"{key}: " if key else ""
        facts.append(f"{label}{'; '.join(items)}{more}" if items else f"{label}none")
    else:
        facts.append(f"{key} {value}" if key else str(value))


def _one_line(item: Any) -> str:
    if isinstance(item, dict):
        parts = [f"{k} {v}" for k, v in item.items() if not isinstance(v, dict | list)]
        return "(" + ", ".join(parts[:6]) + ")"
    return str(item)


def _clip(text: str, limit: int = 300) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"
