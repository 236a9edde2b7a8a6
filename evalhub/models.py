"""Where Django finds the app's models: each domain concept defines its own, and they are gathered here.

Import a model from its concept's package (`evalhub.servers.models`), not from here. The one model defined here
is the project's own wiring: the worker's heartbeat, which /health reads.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import models
from django.utils import timezone

from evalhub.api_keys.models import ApiKey
from evalhub.checkups.models import Checkup
from evalhub.providers.models import Provider, SiteSettings
from evalhub.scenarios.models import Scenario, Tag
from evalhub.servers.models import McpServer, ShippedEval, ToolSnapshot

__all__ = [
    "ApiKey",
    "Checkup",
    "McpServer",
    "Provider",
    "Scenario",
    "ShippedEval",
    "SiteSettings",
    "Tag",
    "ToolSnapshot",
    "WorkerHeartbeat",
]


class WorkerHeartbeat(models.Model):
    """The last time each Celery worker proved it was alive (its housekeeping thread, or a ping task)."""

    hostname = models.CharField(max_length=255, unique=True)
    last_seen = models.DateTimeField()

    class Meta:
        ordering = ["-last_seen"]

    def __str__(self) -> str:
        return self.hostname

    @classmethod
    def record(cls, hostname: str) -> WorkerHeartbeat:
        beat, _ = cls.objects.update_or_create(hostname=hostname, defaults={"last_seen": timezone.now()})
        return beat

    @classmethod
    def latest(cls) -> WorkerHeartbeat | None:
        return cls.objects.order_by("-last_seen").first()

    # A running worker records itself every 10 s (runs/housekeeping.py): a minute of silence means it is gone.
    def is_recent(self, within: timedelta = timedelta(minutes=1)) -> bool:
        return timezone.now() - self.last_seen <= within
