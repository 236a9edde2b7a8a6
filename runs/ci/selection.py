"""Which scenarios `evalhub run` runs: --scenario and --tag choose, then --skip-tag, --include and --exclude narrow
(mcptest's flags: --skip-tag wins over --tag; name patterns are shell-style, `weather*`). Django-free.

--include alone (no --scenario or --tag) starts from every scenario.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from fnmatch import fnmatchcase
from typing import Any


def narrowed(
    rows: Iterable[Mapping[str, Any]], *, skip_tags: list[str], include: list[str], exclude: list[str]
) -> list[int]:
    """The ids of `rows` ({id, name, tags}) that no --skip-tag drops, some --include pattern (when given) names and
    no --exclude pattern names."""
    skipped = {tag.strip().lower() for tag in skip_tags}
    kept = []
    for row in rows:
        name = str(row["name"])
        if skipped & {str(tag).lower() for tag in row.get("tags") or []}:
            continue
        if include and not any(fnmatchcase(name, pattern) for pattern in include):
            continue
        if any(fnmatchcase(name, pattern) for pattern in exclude):
            continue
        kept.append(int(row["id"]))
    return kept
