"""A run's cassette, stored beside it (not on its row: the Runs list and every run read stay light)."""

from __future__ import annotations

from django.db import models


class Cassette(models.Model):
    run = models.OneToOneField("runs.Run", on_delete=models.CASCADE, primary_key=True, related_name="cassette")
    # runs.cassettes.tape.Tape.to_json(): {"version", "model", "simulator", "mcp", "truncated"}.
    data = models.JSONField(default=dict)
    # Bytes as stored (compact JSON): what the run page and the README's figures report.
    size_bytes = models.PositiveIntegerField(default=0)
    model_exchanges = models.PositiveIntegerField(default=0)
    mcp_exchanges = models.PositiveIntegerField(default=0)
    truncated = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"Cassette of run {self.run_id}"
