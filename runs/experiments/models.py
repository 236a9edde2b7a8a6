"""An experiment (scenarios x models x trials), its cells with their stored metrics, and the baseline pinned per tag.

The trials themselves are ordinary `Run` rows that point back at their experiment, cell and trial number.
"""

from __future__ import annotations

from django.conf import settings as django_settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from evalhub.providers.models import Provider
from evalhub.scenarios.models import Scenario
from runs.experiments.stats import TrialCounts

MIN_TRIALS, MAX_TRIALS, DEFAULT_TRIALS = 1, 20, 3
JUDGES = ("all", "calibrated")
JUDGES_CHOICES = [("all", "Every gating judge decides"), ("calibrated", "Only calibrated judges decide")]


class Experiment(models.Model):
    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        CANCELLED = "cancelled", "Cancelled"

    name = models.CharField(max_length=200)
    label = models.CharField(max_length=200, blank=True, help_text="Free text: the server's version, a git sha…")
    # What was asked for, recorded as given: a tag, or scenarios picked by hand (then `tag` is empty).
    tag = models.CharField(max_length=50, blank=True, db_index=True)
    scenario_ids = models.JSONField(default=list)
    # [{"provider_id": 1, "provider": "EvalHub offline", "model": "evalhub-offline"}], in column order; with
    # "tool_mode" when it compares modes and "variant" (a name of variant_list) for a variant's column.
    model_list = models.JSONField(default=list)
    # The tool-surface variants tried beside the server as it is (runs/variants/surface.py's records).
    variant_list = models.JSONField(default=list, blank=True)
    trials = models.PositiveSmallIntegerField(
        default=DEFAULT_TRIALS, validators=[MinValueValidator(MIN_TRIALS), MaxValueValidator(MAX_TRIALS)]
    )
    baseline = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    # When the baseline was the tag's pin: who pinned it and when, as it stood at the start. A gate trusts a pin,
    # so its report says whose word it took; a later re-pin does not rewrite that.
    baseline_pinned_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    baseline_pinned_at = models.DateTimeField(null=True, blank=True)
    # An inconclusive trial (the provider failed, the worker was lost, a judge was skipped) is run once more, so an
    # outage does not leave a cell undecided; the re-run takes one run of the daily quota (runs.experiments.reruns).
    rerun_inconclusive = models.BooleanField(default=True)
    # Which gating judges decide its trials' verdicts: "all", or only those calibrated against people's reviews
    # (the others are advisory: shown, never deciding). The site's EVALHUB_GATE_JUDGES when it started, unless
    # chosen; copied into each trial's settings (runs.scoring.gate_judges).
    judges = models.CharField(max_length=10, choices=JUDGES_CHOICES, default="all")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING, db_index=True)
    # Sums over the cells, kept with them so the list page reads one row per experiment.
    total_runs = models.PositiveIntegerField(default=0)
    finished_runs = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Experiment {self.pk}: {self.name}"

    @property
    def is_finished(self) -> bool:
        return self.status != self.Status.RUNNING

    @property
    def baseline_pin(self) -> dict[str, str | None] | None:
        """The pin this experiment's baseline came from (tag, who, when), or None when it was chosen by id."""
        if self.baseline_pinned_at is None:
            return None
        by = self.baseline_pinned_by
        return {
            "tag": self.tag,
            "pinned_by": by.get_username() if by is not None else None,
            "pinned_at": self.baseline_pinned_at.isoformat(),
        }


class ExperimentCell(models.Model):
    """One scenario x model of an experiment. Its metrics are recomputed from its runs whenever one of them
    finishes or is re-scored (runs.experiments.metrics), so pages never aggregate runs themselves."""

    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="cells")
    scenario = models.ForeignKey(Scenario, null=True, on_delete=models.SET_NULL, related_name="+")
    scenario_name = models.CharField(max_length=200)
    provider = models.ForeignKey(Provider, null=True, on_delete=models.SET_NULL, related_name="+")
    provider_name = models.CharField(max_length=120)
    model = models.CharField(max_length=200)
    # The column's tool mode when the experiment compares modes (runs/code_mode); "" = each scenario's own.
    tool_mode = models.CharField(max_length=10, blank=True, default="")
    # The column's tool-surface variant (a name in the experiment's variant_list); "" = the server as it is.
    variant = models.CharField(max_length=60, blank=True, default="")
    # The column's fault profile when the experiment compares them (runs/fault_injection/profiles.py): its name,
    # and the fault injection its trials run with (re-runs too); "" / None = each scenario's own.
    fault_profile = models.CharField(max_length=60, blank=True, default="")
    fault_injection = models.JSONField(null=True, blank=True)
    row = models.PositiveIntegerField()
    column = models.PositiveIntegerField()

    trials = models.PositiveSmallIntegerField(help_text="Trials planned.")
    finished = models.PositiveSmallIntegerField(default=0)
    # Counted trials are the decided ones: runs whose verdict is pass or fail. Inconclusive trials (an outage, a
    # lost worker, a skipped judge) are counted apart and enter no statistic; cancelled runs are not counted.
    counted = models.PositiveSmallIntegerField(default=0)
    passes = models.PositiveSmallIntegerField(default=0)
    inconclusive = models.PositiveSmallIntegerField(default=0)
    errors = models.PositiveSmallIntegerField(default=0)
    # Trials that did not pass, per failure cause ({"server": 5}), failed trials per first failed stage
    # ({"result returned": 5}), and whether a trial's judge was the model under test.
    failure_causes = models.JSONField(default=dict)
    failed_stages = models.JSONField(default=dict)
    self_judging = models.BooleanField(default=False)
    # Trials run a second time because their first run was inconclusive; the cell counts each trial's last run.
    reruns = models.PositiveSmallIntegerField(default=0)
    score_mean = models.FloatField(null=True, blank=True)
    score_low = models.FloatField(null=True, blank=True)
    score_high = models.FloatField(null=True, blank=True)
    # Every finished trial's duration, sorted: p50/p95 here, and exact medians over a model's cells on the page.
    durations_ms = models.JSONField(default=list)
    tokens_mean = models.FloatField(null=True, blank=True)
    # None when a trial's price is unknown: never a partial sum shown as the cost.
    cost_usd = models.DecimalField(max_digits=12, decimal_places=6, null=True, blank=True)
    # A failing trial's reason, for JUnit and the CLI: the first failed (else inconclusive) run's failure_reason.
    failure = models.TextField(blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["row", "column"]
        constraints = [
            models.UniqueConstraint(fields=["experiment", "row", "column"], name="experiment_cell_position"),
        ]

    def __str__(self) -> str:
        return f"{self.scenario_name} \N{MULTIPLICATION SIGN} {self.model_label}"

    @property
    def counts(self) -> TrialCounts:
        return TrialCounts(self.passes, self.counted - self.passes, self.inconclusive)

    @property
    def model_label(self) -> str:
        """The model as a comparison names it: with its tool mode when the experiment compares modes, its variant
        when it is one, and its fault profile when the experiment compares those."""
        return " · ".join(part for part in (self.model, self.tool_mode, self.variant, self.fault_profile) if part)

    @property
    def key(self) -> tuple[int | None, str, str, str, str]:
        """What makes two experiments' cells the same cell: the scenario, the model (the provider may be
        re-created, the model name is what was measured), the tool mode, the variant and the fault profile."""
        return (self.scenario_id, self.model, self.tool_mode, self.variant, self.fault_profile)


class BaselinePin(models.Model):
    """The experiment new experiments on this tag are compared with (`--baseline pinned` in CI). Who may pin is
    evalhub.permissions' pin rule; who did, and when, is kept here and copied to each experiment that uses it."""

    tag = models.CharField(max_length=50, unique=True)
    experiment = models.ForeignKey(Experiment, on_delete=models.CASCADE, related_name="pins")
    pinned_by = models.ForeignKey(django_settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    pinned_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.tag}: experiment {self.experiment_id}"
