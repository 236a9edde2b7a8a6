"""Services for API keys: issue, revoke, recognise one in a request. The page, the command and the API share them."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import F, Q
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime

from evalhub.api_keys.models import ApiKey

SCOPES = [scope.value for scope in ApiKey.Scope]
# last_used_at is written at most this often per key, so a script polling every second does not write every time.
LAST_USED_RESOLUTION = timedelta(minutes=1)
_DURATION = re.compile(r"^(\d{1,5})\s*([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


class ApiKeyRejected(Exception):
    """The presented key cannot be used; the message says why (unknown, revoked, expired)."""


class ApiKeyInvalid(ValueError):
    """What was asked for a new key is not allowed; the message says what to change."""


def parse_expiry(value: str, *, now: datetime | None = None) -> datetime | None:
    """ "90d", "12h", "2w", "30m", an ISO date or datetime; empty means never. ValueError with a clear message."""
    value = value.strip()
    if not value or value.lower() == "never":
        return None
    now = now or timezone.now()
    if match := _DURATION.match(value.lower()):
        amount, unit = int(match.group(1)), match.group(2)
        if amount == 0:
            raise ValueError("An expiry must be in the future.")
        return now + timedelta(**{_UNITS[unit]: amount})
    moment = parse_datetime(value)
    if moment is None and (day := parse_date(value)) is not None:
        moment = datetime.combine(day, datetime.min.time())
    if moment is None:
        raise ValueError(f"Not an expiry: {value!r}. Use e.g. 90d, 12h, 2w or a date like 2030-01-31.")
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, timezone.get_current_timezone())
    if moment <= now:
        raise ValueError("An expiry must be in the future.")
    return moment


def api_key_create(
    *, user: AbstractBaseUser, name: str, scopes: list[str], expires_at: datetime | None = None
) -> tuple[ApiKey, str]:
    """Issue a key for `user`; returns it with its raw value, which is shown once and never stored."""
    unknown = [scope for scope in scopes if scope not in SCOPES]
    if unknown or not scopes:
        raise ApiKeyInvalid(
            f"Choose scopes among {', '.join(SCOPES)}." + (f" Unknown: {', '.join(unknown)}." if unknown else "")
        )
    if ApiKey.Scope.ADMIN in scopes and not getattr(user, "is_staff", False):
        raise ApiKeyInvalid(f"Only staff users may hold the {ApiKey.Scope.ADMIN.value} scope.")
    if not name.strip():
        raise ApiKeyInvalid("Give the key a name, e.g. the CI job that uses it.")
    if expires_at is not None and expires_at <= timezone.now():
        raise ApiKeyInvalid("An expiry must be in the future.")
    return ApiKey.issue(user=user, name=name.strip()[:100], scopes=sorted(set(scopes)), expires_at=expires_at)


def api_key_revoke(*, key: ApiKey) -> ApiKey:
    if key.revoked_at is None:
        key.revoked_at = timezone.now()
        key.save(update_fields=["revoked_at"])
    return key


def api_key_authenticate(raw: str) -> ApiKey:
    """The active key `raw` names, with its user; records when it was used. ApiKeyRejected otherwise."""
    key = ApiKey.objects.select_related("user").filter(key_hash=ApiKey.hash(raw.strip())).first()
    if key is None:
        raise ApiKeyRejected("This API key is not valid. Create one in Settings → API keys.")
    now = timezone.now()
    if key.revoked_at is not None:
        raise ApiKeyRejected(f"This API key ({key.prefix}…) was revoked on {key.revoked_at:%Y-%m-%d %H:%M} UTC.")
    if key.expires_at is not None and key.expires_at <= now:
        raise ApiKeyRejected(f"This API key ({key.prefix}…) expired on {key.expires_at:%Y-%m-%d %H:%M} UTC.")
    if not key.user.is_active:
        raise ApiKeyRejected(f"The account that owns this API key ({key.prefix}…) is deactivated.")
    if key.last_used_at is None or now - key.last_used_at >= LAST_USED_RESOLUTION:
        # One conditional UPDATE: concurrent requests don't race each other into several writes.
        stale = Q(last_used_at__isnull=True) | Q(last_used_at__lt=now - LAST_USED_RESOLUTION)
        ApiKey.objects.filter(stale, pk=key.pk).update(last_used_at=now)
        key.last_used_at = now
    return key


def api_keys_of(user: AbstractBaseUser | AnonymousUser) -> list[ApiKey]:
    if user.pk is None:
        return []
    return list(ApiKey.objects.filter(user_id=user.pk).order_by(F("revoked_at").desc(nulls_first=True), "-created_at"))
