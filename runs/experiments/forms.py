"""The new-experiment form: scenarios by tag or by hand, models from every provider, trials, label, baseline, and
a variant of a server's tool surface (runs/variants) written in a JSON editor that starts as the surface itself."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.urls import reverse

from evalhub.providers.model_choices import model_choices, parse_model_value
from evalhub.scenarios.forms import JSONTextField
from evalhub.scenarios.models import Scenario, Tag
from evalhub.servers.models import McpServer
from runs.experiments.models import DEFAULT_TRIALS, JUDGES_CHOICES, MAX_TRIALS, MIN_TRIALS, Experiment
from runs.experiments.services import ModelChoice
from runs.fault_injection.profiles import parse_profiles
from runs.variants.surface import VariantInvalid, surface_record, variant_from_text


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
    fault_profiles = JSONTextField(
        required=False,
        label="Fault profiles",
        widget=forms.Textarea(
            attrs={
                "rows": 4,
                "class": "mono",
                "spellcheck": "false",
                "placeholder": '[{"name": "no faults", "fault_injection": {}},\n {"name": "slow search", '
                '"fault_injection": {"faults": [{"tool": "search_flights", "kind": "slow", "delay_ms": 3000}]}}]',
            }
        ),
        help_text="Run every model under each profile (a column each), replacing each scenario's own fault "
        "injection, to see which models cope. Empty: each scenario's own.",
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
    variant_server = forms.ModelChoiceField(
        queryset=McpServer.objects.filter(snapshots__isnull=False).distinct().order_by("name"),
        required=False,
        label="Tool surface of",
        help_text="The server whose tools the variant below changes (as its latest inspection or run listed them).",
    )
    variant = forms.CharField(
        required=False,
        label="Variant of the tool surface (JSON)",
        widget=forms.Textarea(attrs={"rows": 14, "class": "code-editor variant-editor", "spellcheck": "false"}),
        help_text="Starts as the server's tools as they are: rewrite a description or an input_schema, list tools "
        'to hide, or rename tools ({"search_flights": "find_flights"}), and give it a name. Each model then also '
        "runs with this surface, in a column beside the server as it is; the server itself is not touched. Left "
        "as it is, no variant is run.",
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
        server_field = self.fields["variant_server"]
        assert isinstance(server_field, forms.ModelChoiceField)
        server_field.widget.attrs.update(
            {"hx-get": reverse("experiments:variant_surface"), "hx-target": "#id_variant", "hx-swap": "outerHTML"}
        )
        if not self.is_bound:
            server = self.initial.get("variant_server") or server_field.queryset.order_by("name").first()  # type: ignore[union-attr]
            if isinstance(server, McpServer):
                self.initial.update(variant_server=server, variant=editor_text(server))

    def clean_models(self) -> list[ModelChoice]:
        chosen = []
        for value in self.cleaned_data["models"]:
            try:
                provider, model = parse_model_value(value)
            except ValueError as exc:
                raise forms.ValidationError(str(exc)) from None
            chosen.append(ModelChoice(provider, model))
        return chosen

    def clean_fault_profiles(self) -> list[dict[str, Any]]:
        value = self.cleaned_data["fault_profiles"] or []
        errors = parse_profiles(value)[1]
        if errors:
            raise forms.ValidationError([forms.ValidationError(error, code="invalid_faults") for error in errors])
        return list(value)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("tag") and not data.get("scenarios") and "scenarios" not in self.errors:
            self.add_error("scenarios", "Choose a tag, or pick at least one scenario.")
        data["variants"] = []
        server, text = data.get("variant_server"), data.get("variant") or ""
        if text.strip() and server is None:
            self.add_error("variant_server", "Choose the server whose tool surface the variant changes.")
        elif server is not None:
            try:
                variant = variant_from_text(text, server_tools(server))
            except VariantInvalid as exc:
                self.add_error("variant", str(exc))
            else:
                data["variants"] = [variant] if variant else []
        return data


def server_tools(server: McpServer) -> list[dict[str, Any]]:
    """The server's tools as its latest snapshot recorded them (empty before anything listed them)."""
    snapshot = server.latest_snapshot()
    return list(snapshot.tools) if snapshot else []


def editor_text(server: McpServer) -> str:
    """What the variant editor starts with: the server's surface written as a variant."""
    return json.dumps(surface_record(server_tools(server)), indent=2, ensure_ascii=False)
