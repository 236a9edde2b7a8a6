"""`failed_snapshots`: the $snapshot checks of an Expectations result whose value the run page can store."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template

from runs.snapshots.services import UPDATABLE

register = template.Library()


@register.filter
def failed_snapshots(details: Mapping[str, Any] | None) -> list[Mapping[str, Any]]:
    entries = (details or {}).get("snapshots") or []
    return [entry for entry in entries if entry.get("status") in UPDATABLE]
