"""Formatting for the Servers pages."""

from __future__ import annotations

from datetime import datetime

from django import template
from django.utils import timezone
from django.utils.timesince import timesince

register = template.Library()


@register.filter
def ago(value: datetime | None) -> str:
    """ "just now" for the last minute (timesince would say "0 minutes"), else "5 minutes ago"."""
    if value is None:
        return ""
    if (timezone.now() - value).total_seconds() < 60:
        return "just now"
    return f"{timesince(value)} ago"
