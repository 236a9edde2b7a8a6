"""A check-up: one call that looks at a whole server (static quality, protocol compliance, a runtime sweep, its
shipped evals) and answers scored findings. The findings, scores and verdict are computed once
(evalhub.checkups.findings) and stored here; every surface reads them."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models

from evalhub.checkups.findings import Finding
from evalhub.servers.models import McpServer


class Checkup(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        # Parts 1-3 are done; the shipped evals' runs are still going.
        WAITING = "waiting", "waiting for runs"
        FINISHED = "finished"

    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="checkups")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Whether the shipped evals are part of it (the CLI's --no-shipped-evals, the API's shipped_evals: false).
    with_shipped_evals = models.BooleanField(default=True)
    # {"stage": "compliance" | "runtime" | "shipped_evals", "done": n, "total": n}, while it runs.
    progress = models.JSONField(default=dict, blank=True)
    score = models.FloatField(null=True, blank=True)
    passed = models.BooleanField(null=True, blank=True)
    # findings.Summary.to_dict(): per-section scores and counts.
    summary = models.JSONField(default=dict, blank=True)
    findings = models.JSONField(default=list, blank=True)
    # What the probe saw (probe.py), for the report's details: server info, lists, calls, reads, timings.
    observations = models.JSONField(default=dict, blank=True)
    # The runs of the shipped evals it started.
    run_ids = models.JSONField(default=list, blank=True)
    # Why it could not be done at all (the server could not be reached): {"kind", "message", "stderr_tail"}.
    error = models.JSONField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Check-up {self.pk} of {self.server_id}"

    @property
    def is_done(self) -> bool:
        return self.status == self.Status.FINISHED

    def finding_objects(self) -> list[Finding]:
        return [Finding.of(item) for item in self.findings]

    def verdict(self) -> str:
        """ "PASS", "FAIL", "ERROR" (EvalHub failed: no verdict), or the status while it is not finished."""
        if not self.is_done:
            return self.status
        if self.passed is None:
            return "ERROR"
        return "PASS" if self.passed else "FAIL"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.pk,
            "server_id": self.server_id,
            "server_name": self.server.name,
            "status": self.status,
            "verdict": self.verdict(),
            "score": self.score,
            "passed": self.passed,
            "sections": self.summary.get("sections", {}),
            "counts": self.summary.get("counts", {}),
            "findings": self.findings,
            "run_ids": self.run_ids,
            "progress": self.progress,
            "error": self.error,
            "created_at": self.created_at.isoformat() if self.created_at else None,
            "started_at": self.started_at.isoformat() if self.started_at else None,
            "finished_at": self.finished_at.isoformat() if self.finished_at else None,
            "duration_ms": self.observations.get("duration_ms"),
            "server": self.observations.get("server"),
        }
