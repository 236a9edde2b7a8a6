"""One row per event. Ids only grow, so a client that says which event it saw last (Last-Event-ID) resumes after it.

The last EVALHUB_EVENTS_KEPT events are kept (runs.events.publish prunes older ones as it writes); the run,
experiment and quota rows stay the truth, events only say what changed and when.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class RunEvent(models.Model):
    id = models.BigAutoField(primary_key=True)
    type = models.CharField(max_length=40)
    # Plain ids, not foreign keys: an event outlives a deleted run, and writing one never locks the run's row.
    run_id = models.BigIntegerField(null=True, db_index=True)
    experiment_id = models.BigIntegerField(null=True, db_index=True)
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.type} #{self.pk}"
