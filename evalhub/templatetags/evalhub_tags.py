"""Formatting shared by every page: scores, money, durations, JSON; and which buttons a user may press."""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from typing import Any

from django import template
from django.utils import timezone
from django.utils.timesince import timesince

from evalhub import permissions
from evalhub.permissions import Changeable, User
from evalhub.servers.models import McpServer
from runs.models import Review

register = template.Library()


@register.filter
def score(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


@register.filter
def percent(value: float | None) -> str:
    """A share from 0 to 1 as a whole percentage; "—" when there is none (nothing to divide by)."""
    return "—" if value is None else f"{value:.0%}"


@register.filter
def usd(value: Decimal | str | None) -> str:
    """Cost in USD; "unknown" when the price is unknown (never a made-up number)."""
    if value is None:
        return "unknown"
    amount = Decimal(value)
    if amount == 0:
        return "$0"
    return f"${amount:.4f}" if amount < 1 else f"${amount:,.2f}"


@register.filter
def duration(ms: int | float | None) -> str:
    if ms is None:
        return "—"
    if ms < 1000:
        return f"{ms:.0f} ms"
    seconds = ms / 1000
    return f"{seconds:.1f} s" if seconds < 60 else f"{int(seconds // 60)} min {int(seconds % 60)} s"


@register.filter
def pretty_json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


@register.filter
def preview(value: Any, length: int = 120) -> str:
    """A one-line preview of a tool result: its text content, else its JSON."""
    if isinstance(value, dict) and isinstance(value.get("content"), list):
        texts = [block.get("text", "") for block in value["content"] if isinstance(block, dict)]
        text = " ".join(t for t in texts if t) or json.dumps(value.get("structuredContent"), default=str)
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= length else text[: length - 1] + "…"


@register.filter
def ago(value: datetime | None) -> str:
    """ "just now" for the last minute (timesince would say "0 minutes"), else "5 minutes ago"."""
    if value is None:
        return ""
    if (timezone.now() - value).total_seconds() < 60:
        return "just now"
    return f"{timesince(value)} ago"


@register.filter
def words(value: str) -> str:
    """An identifier as words: `missing_call` → `missing call`."""
    return str(value).replace("_", " ")


@register.filter
def acknowledge_refusal(user: User, server: McpServer) -> str:
    """`{% with refusal=user|acknowledge_refusal:server %}`: why this user may not acknowledge side effects, or ""."""
    return permissions.acknowledge_refusal(user, server)


@register.filter
def can_change(user: User, obj: Changeable) -> bool:
    """`{% if user|can_change:scenario %}`: offer a button only to whoever may use it (evalhub.permissions)."""
    return permissions.can_change(user, obj)


@register.filter
def can_delete_review(user: User, review: Review) -> bool:
    """`{% if user|can_delete_review:review %}`: its author or staff (evalhub.permissions)."""
    return permissions.can_delete_review(user, review)


@register.filter
def change_refusal(user: User, obj: Changeable) -> str:
    """Why `user` may not change `obj`, for the read-only notice; "" when they may."""
    return permissions.change_refusal(user, obj)
