"""Scenarios: a prompt for an LLM agent that can call one MCP server's tools, and what a good run looks like."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from evalhub.providers.models import Provider
from evalhub.servers.models import McpServer

DEFAULT_PASS_THRESHOLD = 0.7


class Tag(models.Model):
    name = models.SlugField(max_length=50, unique=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Scenario(models.Model):
    name = models.CharField(max_length=200, unique=True)
    description = models.TextField(blank=True)
    prompt = models.TextField("input prompt", help_text="What the user asks the agent.")
    system_prompt = models.TextField(blank=True)
    server = models.ForeignKey(McpServer, on_delete=models.PROTECT, related_name="scenarios")
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="scenarios")
    model = models.CharField(max_length=200)
    max_turns = models.PositiveSmallIntegerField(default=10, validators=[MinValueValidator(1), MaxValueValidator(100)])
    max_tool_calls = models.PositiveSmallIntegerField(
        default=25, validators=[MinValueValidator(1), MaxValueValidator(500)]
    )
    time_limit_seconds = models.PositiveIntegerField(
        "time limit (seconds)", default=300, validators=[MinValueValidator(5), MaxValueValidator(1200)]
    )
    expected_tools = models.JSONField(default=list, blank=True, help_text="Tool names, in the order expected.")
    expected = models.JSONField(null=True, blank=True, help_text="Free JSON handed to scorers as `expected`.")
    tags = models.ManyToManyField(Tag, blank=True, related_name="scenarios")
    pass_threshold = models.FloatField(
        default=DEFAULT_PASS_THRESHOLD, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)]
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def unknown_expected_tools(self) -> list[str]:
        """Expected tool names the server's latest tool snapshot does not offer (a warning, not an error)."""
        snapshot = self.server.latest_snapshot()
        if snapshot is None:
            return []
        offered = set(snapshot.tool_names)
        return [name for name in self.expected_tools if name not in offered]
