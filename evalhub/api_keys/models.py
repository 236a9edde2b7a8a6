"""API keys for scripts and CI: shown once, stored only as a hash, scoped, expiring, revocable."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

KEY_PREFIX = "ehk_"


class ApiKey(models.Model):
    class Scope(models.TextChoices):
        READ = "evaluate:read", "evaluate:read — read everything (GET)"
        WRITE = "evaluate:write", "evaluate:write — create, start and cancel"
        ADMIN = "evaluate:admin", "evaluate:admin — stdio servers, providers, keys"
        EXPORT = "evaluate:export", "evaluate:export — download reports"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=100)
    # The first characters of the key, to recognise it in lists; the rest exists only as a hash.
    prefix = models.CharField(max_length=16, db_index=True)
    key_hash = models.CharField(max_length=64, unique=True)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @staticmethod
    def hash(raw_key: str) -> str:
        return hashlib.sha256(raw_key.encode()).hexdigest()

    @classmethod
    def issue(cls, *, user: object, name: str, scopes: list[str], expires_at: object = None) -> tuple[ApiKey, str]:
        """Create a key and return it with its raw value, which is never stored and cannot be shown again."""
        raw = KEY_PREFIX + secrets.token_urlsafe(32)
        key = cls.objects.create(
            user=user, name=name, prefix=raw[:12], key_hash=cls.hash(raw), scopes=scopes, expires_at=expires_at
        )
        return key, raw

    @property
    def is_active(self) -> bool:
        now = timezone.now()
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)
