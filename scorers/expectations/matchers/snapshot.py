"""`$snapshot`: the first value seen is stored, later runs must equal it (mcptest's `snapshot`).

Keyed per scenario by the argument when it is a name, else by the expectation's target and the path inside it
(`final_answer`, `tool_result get_weather $.structuredContent.items`), so reordering expectations keeps their
snapshots. The engine stays pure: it reads `Snapshots.stored` and reports in `Snapshots.seen` what the caller must
persist (created, updated) or may offer to update (mismatched, refused).
"""

from __future__ import annotations

from typing import Any

from scorers.expectations.matchers.base import MatchContext, Matcher, Mismatch, Snapshots
from scorers.expectations.values import render, values_equal

_MISSING = object()
HOW_TO_UPDATE = "run `evalhub run --update-snapshots` or press Update snapshot on the run's page"


def snapshot_key(argument: Any, path: str, ctx: MatchContext) -> str:
    if isinstance(argument, str):
        return argument
    return f"{ctx.target} {path}".strip() if path else ctx.target or "value"


def _test(argument: Any, actual: Any, path: str, ctx: MatchContext) -> list[Mismatch]:
    snapshots = ctx.snapshots if ctx.snapshots is not None else Snapshots()
    key = snapshot_key(argument, path, ctx)
    earlier = snapshots.seen.get(key)
    if earlier is not None and earlier["status"] in ("created", "updated"):
        stored = earlier["value"]  # recorded by this evaluation already: later values compare with it
    else:
        stored = snapshots.stored.get(key, _MISSING)
    if snapshots.update and earlier is None:
        snapshots.seen[key] = {"key": key, "value": actual, "status": "updated"}
        return []
    if stored is _MISSING:
        if not snapshots.may_create:
            snapshots.seen[key] = {"key": key, "value": actual, "status": "refused"}
            message = (
                f"no snapshot {render(key)} is stored, and with CI=true a run does not create one: {HOW_TO_UPDATE}"
            )
            return [Mismatch(path, message)]
        snapshots.seen[key] = {"key": key, "value": actual, "status": "created"}
        return []
    if values_equal(stored, actual):
        snapshots.seen.setdefault(key, {"key": key, "value": actual, "status": "matched"})
        return []
    snapshots.seen.setdefault(key, {"key": key, "value": actual, "status": "mismatched"})
    message = f"differs from snapshot {render(key)}: expected {render(stored)}, got {render(actual)} ({HOW_TO_UPDATE})"
    return [Mismatch(path, message)]


MATCHERS = [
    Matcher(
        "$snapshot",
        "Equal to the value stored the first time this check ran (true: keyed by where it is; or give a name).",
        {"oneOf": [{"const": True}, {"type": "string", "minLength": 1}]},
        "true or a snapshot name",
        True,
        noun=lambda argument, actual: "the stored snapshot",
        predicate=lambda argument: "equal to its snapshot" + (f" {render(argument)}" if argument is not True else ""),
        test=_test,
    ),
]
