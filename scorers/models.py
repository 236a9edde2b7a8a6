"""Scorers: JavaScript code scorers and label-based LLM judges. Editing one creates a new version."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from evalhub.providers.models import Provider
from evalhub.scenarios.models import Scenario
from scorers.judge_cache.models import CachedVerdict

__all__ = ["CachedVerdict", "ScenarioScorer", "Scorer", "ScorerVersion"]


class Scorer(models.Model):
    class Kind(models.TextChoices):
        CODE = "code", "Code scorer (JavaScript)"
        JUDGE = "judge", "LLM judge"

    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.CODE)
    # The current version's content; every saved change is also kept as a ScorerVersion.
    version = models.PositiveIntegerField(default=1)
    code = models.TextField(blank=True, help_text="async ({ input, expected, output }) => number in 0..1")
    system_prompt = models.TextField(blank=True)
    labels = models.TextField(blank=True, help_text="One per line: LABEL|score, e.g. GOOD|1")
    judge_provider = models.ForeignKey(Provider, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    judge_model = models.CharField(max_length=200, blank=True)
    scenarios: models.ManyToManyField[Scenario, ScenarioScorer] = models.ManyToManyField(
        Scenario, blank=True, related_name="scorers", through="ScenarioScorer"
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def tidy_content(self) -> None:
        """Keep only what this kind of scorer uses, with plain `\n` line endings.

        A browser's textarea sends `\r\n`, and the fields of the other kind stay filled in the form: kept, they
        would make a new version for nothing and be exported (as a quoted string of `\r\n`s) where they mean
        nothing.
        """
        for name in ("description", "code", "system_prompt", "labels"):
            setattr(self, name, getattr(self, name).replace("\r\n", "\n").replace("\r", "\n"))
        if self.kind == self.Kind.CODE:
            self.system_prompt, self.labels, self.judge_provider, self.judge_model = "", "", None, ""
        else:
            self.code = ""


class ScorerVersion(models.Model):
    """A scorer as it was at one version; run results point at the version that scored them."""

    scorer = models.ForeignKey(Scorer, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    kind = models.CharField(max_length=10, choices=Scorer.Kind.choices)
    code = models.TextField(blank=True)
    system_prompt = models.TextField(blank=True)
    labels = models.TextField(blank=True)
    judge_provider = models.ForeignKey(Provider, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    judge_model = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["scorer", "-version"]
        constraints = [models.UniqueConstraint(fields=["scorer", "version"], name="unique_scorer_version")]

    def __str__(self) -> str:
        return f"{self.scorer.name} v{self.version}"


class ScenarioScorer(models.Model):
    """A scorer attached to a scenario: gating at its own threshold (default: the scenario's), or advisory (shown
    and counted in the score, never failing a run)."""

    scorer = models.ForeignKey(Scorer, on_delete=models.CASCADE, related_name="attachments")
    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="scorer_attachments")
    advisory = models.BooleanField(default=False)
    threshold = models.FloatField(null=True, blank=True)

    class Meta:
        # The table Django made for the plain many-to-many, with its unique (scorer, scenario) index: attachments
        # made before keep their rows, and count as gating.
        db_table = "scorers_scorer_scenarios"

    def __str__(self) -> str:
        return f"{self.scorer_id} on {self.scenario_id}"
