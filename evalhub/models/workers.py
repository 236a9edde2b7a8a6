from __future__ import annotations

from datetime import timedelta

from django.db import models
from django.utils import timezone


class WorkerHeartbeat(models.Model):
    """The last time each Celery worker proved it was alive by executing a task."""

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

    def is_recent(self, within: timedelta = timedelta(minutes=5)) -> bool:
        return timezone.now() - self.last_seen <= within
