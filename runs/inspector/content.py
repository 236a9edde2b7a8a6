"""A tool result's parts, as a reader wants them: text as text, JSON as JSON, images and resources previewed.

Everything here is data for templates, which escape it. Nothing is fetched: an image is shown only from the
bytes the result carries (a data: URI of a raster type), a resource link only as a link's text and address.
"""

from __future__ import annotations

import json
import re
from typing import Any

# Image types a browser shows in <img> without running anything; SVG is left out (it can carry script when opened).
PREVIEWED_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "image/avif", "image/bmp"})
_BASE64 = re.compile(r"^[A-Za-z0-9+/]*={0,2}$")


def parse_json_text(text: str) -> tuple[bool, Any]:
    """(True, value) when `text` is a JSON object or array (what reads better as a tree than as text)."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "[{":
        return False, None
    try:
        return True, json.loads(stripped)
    except ValueError:
        return False, None


def image_source(block: dict[str, Any]) -> str | None:
    """A data: URI for an image block's bytes, or None when its type or data is not one we show."""
    mime, data = block.get("mimeType"), block.get("data")
    if mime not in PREVIEWED_IMAGE_TYPES or not isinstance(data, str) or not _BASE64.match(data):
        return None
    return f"data:{mime};base64,{data}"


def _block(block: Any) -> dict[str, Any]:
    if not isinstance(block, dict):
        return {"kind": "other", "value": block}
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        is_json, value = parse_json_text(block["text"])
        return {"kind": "json", "value": value} if is_json else {"kind": "text", "text": block["text"]}
    data = block.get("data")
    size = len(data) if isinstance(data, str) else 0
    if kind == "image":
        return {"kind": "image", "src": image_source(block), "mimeType": block.get("mimeType", "?"), "size": size}
    if kind == "audio":
        return {"kind": "audio", "mimeType": block.get("mimeType", "?"), "size": size}
    if kind == "resource" and isinstance(block.get("resource"), dict):
        resource = block["resource"]
        text = resource.get("text")
        blob = resource.get("blob")
        return {
            "kind": "resource",
            "uri": str(resource.get("uri", "")),
            "mimeType": resource.get("mimeType", ""),
            "text": text if isinstance(text, str) else None,
            "blobSize": len(blob) if isinstance(blob, str) else None,
        }
    if kind == "resource_link":
        return {
            "kind": "resource_link",
            "uri": str(block.get("uri", "")),
            "name": str(block.get("title") or block.get("name") or ""),
            "description": str(block.get("description") or ""),
        }
    return {"kind": "other", "value": block}


def result_parts(result: Any) -> dict[str, Any]:
    """The parts of a recorded CallToolResult.

    `blocks` are its content blocks; a text block that only repeats `structuredContent` (the spec asks servers to
    send both) is left out and counted in `repeats`, so the structured value is shown once. `is_raw` is set when
    the result is not a CallToolResult at all (cut to a string by the size cap, or an older shape): `raw` is then
    shown as it is.
    """
    if not isinstance(result, dict) or not isinstance(result.get("content", []), list):
        return {"is_raw": True, "raw": result, "blocks": [], "has_structured": False, "repeats": 0}
    # The SDK records `structuredContent: null` for a tool that returned none: nothing to show then.
    structured = result.get("structuredContent")
    has_structured = structured is not None
    blocks: list[dict[str, Any]] = []
    repeats = 0
    for index, block in enumerate(result.get("content", [])):
        part = {**_block(block), "index": index}
        if part["kind"] == "json" and has_structured and part["value"] == structured:
            repeats += 1
            continue
        blocks.append(part)
    return {
        "is_raw": False,
        "blocks": blocks,
        "has_structured": has_structured,
        "structured": structured,
        "repeats": repeats,
        "meta": result.get("_meta"),
    }
