"""Scenarios: a prompt for an LLM agent that can call one MCP server's tools, and what a good run looks like."""

from __future__ import annotations

from decimal import Decimal

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from evalhub.providers.models import Provider
from evalhub.servers.models import McpServer

DEFAULT_PASS_THRESHOLD = 0.7
# Enough for a long answer or a big tool call, small enough that a model stuck repeating itself stops early.
DEFAULT_MAX_TOKENS = 4096


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

    class ToolMode(models.TextChoices):
        DIRECT = "direct", "Direct: the model calls the tools"
        CODE = "code", "Code mode: the model writes JavaScript that calls the tools"

    tool_mode = models.CharField(
        "tool mode",
        max_length=10,
        choices=ToolMode.choices,
        default=ToolMode.DIRECT,
        help_text="Code mode offers one tool, run_code, whose description is the server's tools as a typed "
        "JavaScript API; each tool call the program makes is recorded as a nested call.",
    )

    class Level(models.TextChoices):
        # The three levels of the evals/list proposal (reference 000); every other scenario is a "scenario".
        SCENARIO = "scenario", "Scenario: the full agent loop"
        INVOCATION = "invocation", "Invocation: one model turn; the tools it picks are not executed"
        EXECUTION = "execution", "Execution: one tool called directly, no model"
        # Beyond the proposal: the server's other two primitives, read or got directly, no model (runs/primitives).
        RESOURCE = "resource", "Resource: one resource read directly, no model"
        PROMPT = "prompt", "Prompt: one prompt got directly, no model"

    level = models.CharField(max_length=12, choices=Level.choices, default=Level.SCENARIO)
    # Execution level: {"tool": name, "arguments": {...}}, called as it is.
    tool_call = models.JSONField(null=True, blank=True)
    # Resource level: {"uri": ...} or {"template": "x://{id}", "arguments": {"id": ...}}; prompt level:
    # {"name": ..., "arguments": {...}} (string values, as prompts/get takes them).
    primitive = models.JSONField(null=True, blank=True)
    # An eval the server ships (evals/list), linked by its id on this scenario's server; the eval as last synced,
    # and when a re-sync found it gone (the scenario and its runs are kept).
    shipped_eval_id = models.CharField(max_length=200, blank=True, editable=False)
    shipped_eval = models.JSONField(null=True, blank=True, editable=False)
    shipped_eval_removed_at = models.DateTimeField(null=True, blank=True, editable=False)
    max_turns = models.PositiveSmallIntegerField(default=10, validators=[MinValueValidator(1), MaxValueValidator(100)])
    max_tool_calls = models.PositiveSmallIntegerField(
        default=25, validators=[MinValueValidator(1), MaxValueValidator(500)]
    )
    time_limit_seconds = models.PositiveIntegerField(
        "time limit (seconds)", default=300, validators=[MinValueValidator(5), MaxValueValidator(1200)]
    )
    max_tokens = models.PositiveIntegerField(
        "max tokens per model call",
        default=DEFAULT_MAX_TOKENS,
        validators=[MinValueValidator(16), MaxValueValidator(200_000)],
        help_text="The most output tokens one model call may produce (sent to the model as max_tokens).",
    )
    token_budget = models.PositiveIntegerField(
        "token budget",
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text="Stop the run once its tokens (input + output, all model calls) reach this. Empty: no budget.",
    )
    cost_budget_usd = models.DecimalField(
        "cost budget (USD)",
        max_digits=10,
        decimal_places=4,
        null=True,
        blank=True,
        validators=[MinValueValidator(Decimal("0.0001"))],
        help_text="Stop the run once its cost reaches this, when the model's price is known. Empty: no budget.",
    )
    # Order is not checked here; a `tool_sequence` expectation checks it.
    expected_tools = models.JSONField(default=list, blank=True, help_text="Tool names the run should call.")
    expectations = models.JSONField(
        default=list, blank=True, help_text="Declarative checks of the run (scorers/expectations), scored as one."
    )
    expected = models.JSONField(null=True, blank=True, help_text="Free JSON handed to scorers as `expected`.")
    # A restraint test expects tools to fail: tool errors then neither fail the default scorer nor blame the server.
    tool_errors_expected = models.BooleanField(
        default=False,
        help_text="Tool errors are expected (e.g. a restraint test): they do not fail the run or blame the server.",
    )
    # Empty: one prompt. Else scripted follow-ups or a simulated user (runs/conversation/spec.py).
    conversation = models.JSONField(default=dict, blank=True)
    # {name: {"env": VAR, "default": text}}: `${name}` in the texts above reads VAR when a run starts, in the worker
    # (runs/variables.py). Only suite files set them (an mcptest import's environment references).
    variables = models.JSONField(default=dict, blank=True)
    # Empty: the server as it is. Else faults EvalHub injects into the run's tool calls and the recovery it
    # expects of the agent (runs/fault_injection/spec.py).
    fault_injection = models.JSONField(default=dict, blank=True)
    tags = models.ManyToManyField(Tag, blank=True, related_name="scenarios")
    pass_threshold = models.FloatField(
        default=DEFAULT_PASS_THRESHOLD, validators=[MinValueValidator(0.0), MaxValueValidator(1.0)]
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(
                fields=["server", "shipped_eval_id"],
                condition=~models.Q(shipped_eval_id=""),
                name="one_scenario_per_shipped_eval",
            )
        ]

    def __str__(self) -> str:
        return self.name

    def unknown_expected_tools(self) -> list[str]:
        """Expected tool names the server's latest tool snapshot does not offer (a warning, not an error)."""
        snapshot = self.server.latest_snapshot()
        if snapshot is None:
            return []
        offered = set(snapshot.tool_names)
        return [name for name in self.expected_tools if name not in offered]
