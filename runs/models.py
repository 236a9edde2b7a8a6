from __future__ import annotations

from django.db import models


class DailyRunQuota(models.Model):
    """How many runs started on one UTC day. One row per day, so reserving is a single conditional UPDATE."""

    day = models.DateField(primary_key=True)
    used = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-day"]
        verbose_name = "daily run quota"

    def __str__(self) -> str:
        return f"{self.day}: {self.used} runs"
