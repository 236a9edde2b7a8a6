"""Instance-wide choices made on the Settings page: which models EvalHub itself uses."""

from __future__ import annotations

from django.db import models

from evalhub.models.providers import Provider


class SiteSettings(models.Model):
    """One row (pk=1). Empty choices mean the built-in offline model."""

    generation_provider = models.ForeignKey(
        Provider, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    generation_model = models.CharField(max_length=200, blank=True, help_text="Writes code scorers from descriptions.")
    judge_provider = models.ForeignKey(Provider, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    judge_model = models.CharField(max_length=200, blank=True, help_text="The default model of new LLM judges.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "site settings"
        verbose_name_plural = "site settings"

    def __str__(self) -> str:
        return "Site settings"

    @classmethod
    def load(cls) -> SiteSettings:
        settings, _ = cls.objects.get_or_create(pk=1)
        return settings
