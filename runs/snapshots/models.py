"""A stored snapshot: the value a scenario's `$snapshot` check compares later runs with."""

from __future__ import annotations

from django.conf import settings as django_settings
from django.db import models


class ExpectationSnapshot(models.Model):
    # Strings, not imports: runs.models imports this module.
    scenario = models.ForeignKey("evalhub.Scenario", on_delete=models.CASCADE, related_name="snapshots")
    # The snapshot's name, or the target and path it checks (scorers.expectations.matchers.snapshot).
    key = models.CharField(max_length=500)
    value = models.JSONField(null=True)
    # The run whose value this is, and who asked for it when it replaced an earlier one (none: recorded first).
    run = models.ForeignKey("runs.Run", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    updated_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["scenario_id", "key"]
        constraints = [models.UniqueConstraint(fields=["scenario", "key"], name="one_snapshot_per_scenario_and_key")]

    def __str__(self) -> str:
        return f"Snapshot {self.key!r} of scenario {self.scenario_id}"
