from __future__ import annotations

from collections.abc import Iterable
from datetime import timedelta
from decimal import Decimal
from typing import Any

from django.conf import settings as django_settings
from django.db import models
from django.utils import timezone

from evalhub.providers.models import Provider
from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer, ToolSnapshot
from runs.cassettes.models import Cassette
from runs.conversation.simulator import simulator_totals
from runs.events.models import RunEvent
from runs.experiments.models import BaselinePin, Experiment, ExperimentCell
from runs.reviews.models import Review
from runs.snapshots.models import ExpectationSnapshot

__all__ = [
    "BaselinePin",
    "Cassette",
    "DailyRunQuota",
    "ExpectationSnapshot",
    "Experiment",
    "ExperimentCell",
    "Review",
    "Run",
    "RunEvent",
    "ScoreResult",
]


class DailyRunQuota(models.Model):
    """How many runs started on one UTC day. One row per day, so reserving is a single conditional UPDATE."""

    day = models.DateField(primary_key=True)
    used = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-day"]
        verbose_name = "daily run quota"

    def __str__(self) -> str:
        return f"{self.day}: {self.used} runs"


class RunEnded(Exception):
    """The run left `running` (its worker was declared lost) while its worker was still working on it."""


class Run(models.Model):
    """One execution of a scenario: everything the agent did, what it cost, and how it scored."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        ERROR = "error", "Error"
        CANCELLED = "cancelled", "Cancelled"

    class StopReason(models.TextChoices):
        COMPLETED = "completed", "Completed"
        MAX_TURNS = "max_turns", "Max turns reached"
        MAX_TOOL_CALLS = "max_tool_calls", "Max tool calls reached"
        TIME_LIMIT = "time_limit", "Time limit reached"
        TOKEN_BUDGET = "token_budget", "Token budget reached"
        COST_BUDGET = "cost_budget", "Cost budget reached"
        USER_DONE = "user_done", "Simulated user done"
        MAX_USER_TURNS = "max_user_turns", "Max user turns reached"
        ERROR = "error", "Error"
        CANCELLED = "cancelled", "Cancelled"

    FINISHED = (Status.DONE, Status.ERROR, Status.CANCELLED)
    # What the Runs list reads: everything but the heavy JSON of transcripts and tool results.
    LIST_FIELDS = (
        "id",
        "scenario__id",
        "scenario__name",
        "status",
        "model",
        "tool_names",
        "cost_usd",
        "duration_ms",
        "created_at",
        "started_at",
        "score",
        "passed",
        "verdict",
        "auto_verdict",
        "human_verdict",
        "failure_cause",
        "failure_reason",
        "settings",
        # Small (tokens and cost per call): tells a run that never reached the model from one of unknown price.
        "model_calls",
        "replay",
        "replay_of_id",
    )

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="runs")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    stop_reason = models.CharField(max_length=20, choices=StopReason.choices, blank=True)
    # What the run ran with, copied at start so later edits of the scenario, server or provider don't rewrite history.
    provider = models.ForeignKey(Provider, null=True, on_delete=models.SET_NULL, related_name="runs")
    model = models.CharField(max_length=200, db_index=True)
    server = models.ForeignKey(McpServer, null=True, on_delete=models.SET_NULL, related_name="runs")
    tool_snapshot = models.ForeignKey(ToolSnapshot, null=True, blank=True, on_delete=models.SET_NULL)
    tools_hash = models.CharField(max_length=64, blank=True)
    settings = models.JSONField(default=dict, help_text="Prompt, system prompt, budgets and threshold used.")
    started_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL)

    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    worker = models.CharField(max_length=255, blank=True)
    # What the worker is doing now ("connect", "model call 2", "tool call get_weather", "score"): where a lost run
    # stopped, which its error then names.
    phase = models.CharField(max_length=200, blank=True)
    # When it started doing that: the run page counts the step in flight (a 4 s tool call) in its live timing.
    phase_started_at = models.DateTimeField(null=True, blank=True)
    cancel_requested = models.BooleanField(default=False)
    # Set when a re-score is queued, cleared by the worker once it has scored: the run page polls meanwhile.
    rescore_requested_at = models.DateTimeField(null=True, blank=True)

    # The record, in the reference's shapes: TranscriptData and EvalToolCall[].
    transcript = models.JSONField(default=dict)
    tool_calls = models.JSONField(default=list)
    all_tool_calls = models.JSONField(default=list)
    # Names of the tools called, in order: what the Runs list shows without loading whole transcripts.
    tool_names = models.JSONField(default=list)
    final_text = models.TextField(blank=True)
    model_calls = models.JSONField(default=list, help_text="Tokens, cost and latency of each model call.")
    # A simulated user's model calls (runs/conversation): their tokens and cost, kept apart from the agent's.
    simulator_calls = models.JSONField(default=list, blank=True)
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cached_tokens = models.PositiveIntegerField(default=0)
    # None when any call's price is unknown: the total is then unknown too, never a guess.
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    # How long the run waited for its MCP server (a stdio start, an HTTP connect), and whether a warm stdio server
    # was lent to it: {"ms", "transport", "warm"[, "use", "recycleAfter"]} (runs/server_connection.py).
    server_start = models.JSONField(null=True, blank=True)
    error = models.JSONField(null=True, blank=True, help_text='{"step": ..., "kind": ..., "message": ...}')

    score = models.FloatField(null=True, blank=True, db_index=True)
    passed = models.BooleanField(null=True, blank=True, db_index=True)
    score_reason = models.TextField(blank=True)
    # The run's verdict: "pass", "fail", "inconclusive", or "" while there is none (queued, running, cancelled).
    # It is the human verdict when people reviewed the run, else the automatic one; everything (experiments,
    # charts, reports, the gate, the API, events) reads this field. `passed` mirrors it (None when inconclusive);
    # the score stays the weighted mean. runs.run_verdict is the one place that writes them.
    verdict = models.CharField(max_length=12, blank=True, db_index=True)
    # What runs.verdict decided from the run's record and scorers, kept when a review overrides it.
    auto_verdict = models.CharField(max_length=12, blank=True, db_index=True)
    # What the run's reviewers say (runs.reviews.rule): "pass", "fail", or "" when nobody reviewed it.
    human_verdict = models.CharField(max_length=4, blank=True, db_index=True)
    failure_cause = models.CharField(max_length=10, blank=True, db_index=True)
    failure_reason = models.TextField(blank=True)
    stages = models.JSONField(default=list, blank=True)
    # A gating judge's model is the model under test: it grades its own answers.
    self_judging = models.BooleanField(default=False)

    # A trial of an experiment: otherwise an ordinary run (see runs.experiments).
    experiment = models.ForeignKey(Experiment, null=True, blank=True, on_delete=models.CASCADE, related_name="runs")
    cell = models.ForeignKey(ExperimentCell, null=True, blank=True, on_delete=models.CASCADE, related_name="runs")
    trial = models.PositiveSmallIntegerField(null=True, blank=True)

    # A replay (runs.cassettes): the run whose cassette answered it, and how: "cassette" (model and server from the
    # cassette, offline), "live" (the model from the cassette, the server live) or "fork" (replayed up to a step,
    # then live with one change: settings["fork"]). "" for a live run. Pass rates count live runs only.
    replay_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="replays")
    replay = models.CharField(max_length=8, blank=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        # The Runs list's indexes: its order, then the columns it filters on, so the page's ids and its count come
        # from an index-only scan whatever the filters (a heap row is ~2 KB; these entries are ~60 bytes).
        indexes = [
            models.Index(fields=["-created_at", "-id", "scenario", "status", "passed", "model"], name="runs_list_idx"),
            models.Index(
                fields=["scenario", "-created_at", "-id", "status", "passed", "model"], name="runs_list_scenario_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"Run {self.pk} of {self.scenario_id}"

    @property
    def is_finished(self) -> bool:
        return self.status in self.FINISHED

    @property
    def threshold(self) -> float:
        return float(self.settings.get("pass_threshold", 0.7))

    @property
    def simulator_usage(self) -> dict[str, Any]:
        return simulator_totals(self.simulator_calls)

    def heartbeat_is_stale(self, *, after: timedelta) -> bool:
        return self.heartbeat_at is None or timezone.now() - self.heartbeat_at > after

    def save_if_running(self, fields: Iterable[str]) -> bool:
        """Write `fields` only while the run is still running; False, and nothing written, once it has ended.

        Every write into a running run (its worker's record, phase and final state) is this one conditional UPDATE,
        as are the heartbeat and the reaper's verdict: a run leaves `running` exactly once, by whoever gets there
        first, and nothing is written into it afterwards (a late worker cannot turn a reaped run back into "done").
        """
        values = {name: getattr(self, name) for name in fields}
        return Run.objects.filter(pk=self.pk, status=Run.Status.RUNNING).update(**values) == 1

    def record_model_call(self, call: dict[str, Any]) -> None:
        """Add one model call's tokens and cost to the run's totals."""
        self.model_calls = [*self.model_calls, call]
        self.input_tokens += call["input_tokens"]
        self.output_tokens += call["output_tokens"]
        self.cached_tokens += call["cached_tokens"]
        costs = [c["cost_usd"] for c in self.model_calls]
        # One unknown price makes the total unknown: never a partial sum shown as the cost.
        self.cost_usd = None if None in costs else sum((Decimal(c) for c in costs), Decimal(0))


class ScoreResult(models.Model):
    """One scorer's verdict on one run. Re-scoring adds results and marks the older ones not current."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="score_results")
    scorer = models.ForeignKey("scorers.Scorer", null=True, blank=True, on_delete=models.SET_NULL)
    scorer_name = models.CharField(max_length=200)
    scorer_kind = models.CharField(max_length=20)  # "default", "code", "judge" or "expectations"
    scorer_version = models.PositiveIntegerField(null=True, blank=True)
    # What scored, as scorers.calibration.version's fingerprint (code; a judge's prompt, labels and model; the
    # expectations' spec): calibration compares people's reviews with each fingerprint's verdicts. "" for a result
    # scored before fingerprints were kept (its version is unknown, so no review of it vouches for a scorer).
    fingerprint = models.CharField(max_length=16, blank=True, db_index=True)
    # The model that answered for a judge ("" for other kinds): calibration is per judge model.
    judge_model = models.CharField(max_length=200, blank=True)
    score = models.FloatField(null=True, blank=True)
    passed = models.BooleanField(null=True, blank=True)
    # A gating result fails the run when it fails (at `threshold`); an advisory one only counts toward the score.
    gating = models.BooleanField(default=True)
    threshold = models.FloatField(null=True, blank=True)
    reason = models.TextField(blank=True)
    label = models.CharField(max_length=100, blank=True)
    console = models.JSONField(default=list, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    # "ok", "errored" (counts as 0) or "skipped" (left out of the mean, e.g. a judge with no judge model).
    outcome = models.CharField(max_length=10, default="ok")
    # What an LLM judge's calls used; shown apart from the agent's tokens and cost. Cost None = unknown price.
    input_tokens = models.PositiveIntegerField(default=0)
    output_tokens = models.PositiveIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    # What a structured scorer found beyond its score: the Expectations checklist (ExpectationsResult.to_dict()).
    details = models.JSONField(null=True, blank=True)
    is_current = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]

    def __str__(self) -> str:
        return f"{self.scorer_name}: {self.score}"
