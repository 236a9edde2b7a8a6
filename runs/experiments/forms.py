"""The new-experiment form: scenarios by tag or by hand, models from every provider, trials, label, baseline."""

from __future__ import annotations

from typing import Any

from django import forms

from evalhub.providers.model_choices import model_choices, parse_model_value
from evalhub.scenarios.models import Scenario, Tag
from runs.experiments.models import DEFAULT_TRIALS, JUDGES_CHOICES, MAX_TRIALS, MIN_TRIALS, Experiment
from runs.experiments.services import ModelChoice


class ExperimentForm(forms.Form):
    name = forms.CharField(max_length=200, required=False, help_text="Leave empty for the tag (or scenario) and date.")
    label = forms.CharField(
        max_length=200, required=False, help_text="What you are measuring: the server's version, a git sha…"
    )
    tag = forms.ChoiceField(required=False, help_text="Every scenario with this tag…")
    scenarios = forms.ModelMultipleChoiceField(
        queryset=Scenario.objects.order_by("name"),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="…or pick scenarios by hand (used when no tag is chosen).",
    )
    models = forms.MultipleChoiceField(
        widget=forms.CheckboxSelectMultiple, help_text="The matrix's columns: any provider's models."
    )
    modes = forms.MultipleChoiceField(
        required=False,
        widget=forms.CheckboxSelectMultiple,
        choices=[("direct", "Direct tool calls"), ("code", "Code mode (run_code)")],
        help_text="Run every model in each mode checked, to compare them on the same scenarios. None: each "
        "scenario's own mode.",
    )
    trials = forms.IntegerField(
        min_value=MIN_TRIALS,
        max_value=MAX_TRIALS,
        initial=DEFAULT_TRIALS,
        help_text=f"Runs per scenario and model ({MIN_TRIALS} to {MAX_TRIALS}); each counts against the daily quota.",
    )
    rerun_inconclusive = forms.BooleanField(
        required=False,
        initial=True,
        label="Re-run inconclusive trials once",
        help_text="A trial that could not be decided (the model provider failed, the worker was lost, a judge was "
        "skipped) runs once more; each re-run counts against the daily quota.",
    )
    judges = forms.ChoiceField(
        choices=[("", "The site's setting"), *JUDGES_CHOICES],
        required=False,
        label="Judges that decide",
        help_text="Only calibrated: a judge whose verdicts do not agree with people's reviews well enough "
        "(Cohen's κ) is advisory — shown, never deciding a trial's verdict.",
    )
    baseline = forms.ModelChoiceField(
        queryset=Experiment.objects.order_by("-created_at"),
        required=False,
        empty_label="The tag's pinned baseline, if any",
        help_text="The experiment this one is compared with.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        tag_field, models_field = self.fields["tag"], self.fields["models"]
        assert isinstance(tag_field, forms.ChoiceField) and isinstance(models_field, forms.ChoiceField)
        tag_field.choices = [("", "— pick scenarios below —"), *((t.name, t.name) for t in Tag.objects.all())]
        models_field.choices = model_choices()
        offered = [value for _, options in models_field.choices for value, _ in options]
        if len(offered) == 1 and not self.is_bound:
            self.initial.setdefault("models", offered)  # the only model there is: nothing to choose

    def clean_models(self) -> list[ModelChoice]:
        chosen = []
        for value in self.cleaned_data["models"]:
            try:
                provider, model = parse_model_value(value)
            except ValueError as exc:
                raise forms.ValidationError(str(exc)) from None
            chosen.append(ModelChoice(provider, model))
        return chosen

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("tag") and not data.get("scenarios") and "scenarios" not in self.errors:
            self.add_error("scenarios", "Choose a tag, or pick at least one scenario.")
        return data
