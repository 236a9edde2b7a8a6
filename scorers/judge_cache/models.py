"""Kept judge verdicts (scorers.judge_cache)."""

from __future__ import annotations

from django.db import models


class CachedVerdict(models.Model):
    key = models.CharField(max_length=64, primary_key=True)
    score = models.FloatField()
    label = models.CharField(max_length=100)
    reason = models.TextField(blank=True)
    judge_model = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)
    # How often it answered instead of the judge: what it saved.
    hits = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.label} by {self.judge_model}"
