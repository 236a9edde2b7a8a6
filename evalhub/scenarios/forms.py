"""Forms of the core app. Each says what is wrong, where, and keeps what the user typed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from django import forms

from evalhub.providers.model_choices import model_choices, model_value, parse_model_value
from evalhub.providers.models import Provider
from evalhub.scenarios.models import DEFAULT_MAX_TOKENS, Scenario, Tag
from evalhub.storable import refusal, storable
from runs.conversation.spec import parse_conversation, validate_conversation
from runs.fault_injection.spec import FAULT_INJECTION_HELP, plan_errors
from runs.primitive_request import primitive_request
from scorers.attachments import attach_scorers
from scorers.calibration.services import scorer_summaries
from scorers.expectations import validate_expectations
from scorers.models import Scorer

TOOL_NAME = re.compile(r"^[A-Za-z0-9_.\-/]{1,128}$")


class JSONTextField(forms.CharField):
    """Free JSON typed in a textarea; errors point at the line and column."""

    widget = forms.Textarea

    def to_python(self, value: Any) -> Any:
        text = super().to_python(value) or ""
        if not text.strip():
            return None
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise forms.ValidationError(
                f"Invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}.", code="invalid_json"
            ) from None

    def prepare_value(self, value: Any) -> Any:
        if value is None or isinstance(value, str):
            return value or ""
        return json.dumps(value, indent=2)


class ExpectationsField(JSONTextField):
    """The expectations list as JSON (what the editor on the form writes); every error names its index and field."""

    def to_python(self, value: Any) -> Any:
        # Empty means none; a typed `null` stays None, so validation says a list was expected.
        return super().to_python(value) if (value or "").strip() else []

    def validate(self, value: Any) -> None:
        errors = validate_expectations(value)
        if errors:
            raise forms.ValidationError([forms.ValidationError(error, code="invalid_expectation") for error in errors])


class SettingObjectField(JSONTextField):
    """A JSON object checked by its engine's validator (`check`, whose errors name their place); empty means {}."""

    def __init__(self, *, check: Callable[[Any], list[str]], code: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check, self.code = check, code

    def to_python(self, value: Any) -> Any:
        return super().to_python(value) if (value or "").strip() else {}

    def validate(self, value: Any) -> None:
        errors = self.check(value)
        if errors:
            raise forms.ValidationError([forms.ValidationError(error, code=self.code) for error in errors])


class ConversationField(SettingObjectField):
    """Follow-up turns or a simulated user as JSON (runs/conversation/spec.py); empty means one prompt."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(check=validate_conversation, code="invalid_conversation", **kwargs)


class FaultInjectionField(SettingObjectField):
    """Faults to inject and the recovery expected, as JSON (runs/fault_injection/spec.py); empty means none."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(check=plan_errors, code="invalid_faults", **kwargs)


class ScenarioForm(forms.ModelForm):
    model_choice = forms.ChoiceField(label="Model")
    expected_tools_text = forms.CharField(
        label="Expected tools",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "placeholder": "get_weather\nsearch_flights"}),
        help_text="One tool name per line. The default scorer checks that each was called, in any order "
        "(a tool_sequence expectation checks the order).",
    )
    expectations = ExpectationsField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 6, "class": "mono", "spellcheck": "false"}),
        help_text="Checks of the run (see the editor below); scored together as one result, “Expectations”.",
    )
    expected = JSONTextField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4, "class": "mono", "placeholder": '{"city": "Paris"}'}),
        help_text="Optional JSON handed to scorers as `expected`.",
    )
    conversation = ConversationField(
        required=False,
        widget=forms.Textarea(
            attrs={
                "rows": 7,
                "class": "mono",
                "spellcheck": "false",
                "placeholder": '{"turns": ["From London on 2026-12-18, 2 passengers."]}\nor\n'
                '{"simulate": {"goal": "Book a flight to Paris", "max_user_turns": 3, "goal_tool": "book_flight"}}',
            }
        ),
        help_text='Empty: one prompt. Scripted: {"turns": [follow-up messages]}, each sent once the agent has '
        'answered the previous one. Simulated user: {"simulate": {goal, persona, model, provider_id, '
        "max_user_turns (default 6), goal_tool}}; it answers from `expected` and replies DONE when it is done; "
        "model and provider_id default to the scenario's. Budgets apply to the whole conversation.",
    )
    fault_injection = FaultInjectionField(
        label="Fault injection",
        required=False,
        widget=forms.Textarea(
            attrs={
                "rows": 5,
                "class": "mono",
                "spellcheck": "false",
                "placeholder": '{"faults": [{"tool": "search_flights", "kind": "slow", "delay_ms": 3000}],\n'
                ' "recovery": {"max_detection_ms": 8000, "require_told_user": true}}',
            }
        ),
        help_text=FAULT_INJECTION_HELP,
    )
    scorers = forms.ModelMultipleChoiceField(
        queryset=Scorer.objects.all(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="None: the default scorer (were the expected tools called and did every call succeed?). Each "
        "scorer gates: a run passes only when each passes at the threshold; the run's score is their mean.",
    )
    advisory_scorers = forms.ModelMultipleChoiceField(
        queryset=Scorer.objects.all(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Advisory scorers",
        help_text="Of the scorers ticked above: shown and counted in the score, but never failing a run.",
    )
    primitive_target = forms.CharField(
        label="Resource or prompt",
        required=False,
        max_length=2000,
        help_text="Resource level: a URI (travel://airports) or a URI template (travel://airports/{code}); "
        "prompt level: the prompt's name. Other levels ignore it.",
    )
    primitive_arguments = JSONTextField(
        label="Template or prompt arguments",
        required=False,
        help_text='A JSON object: a template\'s values, or the prompt\'s arguments (strings), e.g. {"code": "CDG"}.',
    )
    tags_text = forms.CharField(
        label="Tags",
        required=False,
        help_text="Comma-separated, e.g. smoke, weather. Unaccented letters, digits, - and _.",
    )

    class Meta:
        model = Scenario
        fields = [
            "name",
            "description",
            "server",
            "level",
            "prompt",
            "system_prompt",
            "tool_mode",
            "max_turns",
            "max_tool_calls",
            "time_limit_seconds",
            "max_tokens",
            "token_budget",
            "cost_budget_usd",
            "pass_threshold",
            "tool_errors_expected",
        ]
        widgets = {
            "description": forms.Textarea(attrs={"rows": 2}),
            "prompt": forms.Textarea(attrs={"rows": 4, "placeholder": "What's the weather at latitude 48.85?"}),
            "system_prompt": forms.Textarea(attrs={"rows": 3}),
        }

    field_order = [
        "name",
        "description",
        "server",
        "model_choice",
        "level",
        "primitive_target",
        "primitive_arguments",
        "prompt",
        "system_prompt",
        "tool_mode",
        "expected_tools_text",
        "expected",
        "conversation",
        "expectations",
        "fault_injection",
        "scorers",
        "advisory_scorers",
        "pass_threshold",
        "tool_errors_expected",
        "max_turns",
        "max_tool_calls",
        "time_limit_seconds",
        "max_tokens",
        "token_budget",
        "cost_budget_usd",
        "tags_text",
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        model_field = self.fields["model_choice"]
        assert isinstance(model_field, forms.ChoiceField)
        model_field.choices = model_choices()
        self.fields["pass_threshold"].help_text = "A run passes when its score is at least this (0 to 1)."
        # Empty means the default, so forms and API clients from before this setting keep working.
        self.fields["max_tokens"].required = False
        self.fields["tool_mode"].required = False
        self.fields["level"].required = False
        self.fields["level"].help_text = (
            "Resource and prompt levels read or get on the server directly, with no model; the prompt below is "
            "then only a description. Invocation and execution come from shipped evals and suites."
        )
        self.fields["max_tokens"].help_text += f" Empty: {DEFAULT_MAX_TOKENS}."
        scenario: Scenario = self.instance
        if scenario.pk:
            self.initial["model_choice"] = model_value(scenario.provider, scenario.model)
            self.initial["expected_tools_text"] = "\n".join(scenario.expected_tools)
            self.initial["expected"] = scenario.expected
            self.initial["expectations"] = scenario.expectations
            self.initial["conversation"] = scenario.conversation or None
            self.initial["fault_injection"] = scenario.fault_injection or None
            self.initial["tags_text"] = ", ".join(tag.name for tag in scenario.tags.all())
            request = scenario.primitive or {}
            self.initial["primitive_target"] = request.get("uri") or request.get("template") or request.get("name")
            self.initial["primitive_arguments"] = request.get("arguments") or None
            self.initial["scorers"] = list(scenario.scorers.all())
            self.initial["advisory_scorers"] = list(
                Scorer.objects.filter(attachments__scenario=scenario, attachments__advisory=True)
            )
        self._label_judges_with_calibration()

    def _label_judges_with_calibration(self) -> None:
        """Each judge in the pickers says how far it agrees with people ("calibrated · κ 0.82 over 24 reviewed
        runs"): what decides whether it may gate runs that trust only calibrated judges."""
        judges = list(Scorer.objects.filter(kind=Scorer.Kind.JUDGE))
        calibrations = scorer_summaries(scorers=judges)

        def label(scorer: Scorer) -> str:
            calibration = calibrations.get(scorer.pk)
            return f"{scorer.name} ({calibration.summary})" if calibration else scorer.name

        for name in ("scorers", "advisory_scorers"):
            field = self.fields[name]
            assert isinstance(field, forms.ModelMultipleChoiceField)
            field.label_from_instance = label  # type: ignore[assignment]

    def clean_model_choice(self) -> str:
        value: str = self.cleaned_data["model_choice"]
        try:
            parse_model_value(value)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None
        return value

    def clean_expected(self) -> Any:
        # Python's json reads NaN and Infinity, which are not JSON and which PostgreSQL refuses to store.
        value = self.cleaned_data["expected"]
        _, problems = storable(value)
        if problems:
            raise forms.ValidationError(refusal(problems[0].under("expected")), code="invalid_json")
        return value

    def clean_level(self) -> str:
        # Not sent (older API clients, other forms): the level stays what it was ("scenario" for a new one).
        level = str(self.cleaned_data["level"] or self.instance.level or Scenario.Level.SCENARIO)
        imported = (Scenario.Level.INVOCATION, Scenario.Level.EXECUTION)
        if level in imported and level != self.instance.level:
            raise forms.ValidationError(
                f"The {level} level comes from a server's shipped evals or a suite file; choose scenario, resource "
                "or prompt."
            )
        return level

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned: dict[str, Any] = self.cleaned_data
        level = cleaned.get("level")
        cleaned["primitive"] = None
        if level in (Scenario.Level.RESOURCE, Scenario.Level.PROMPT) and "primitive_arguments" in cleaned:
            try:
                cleaned["primitive"] = primitive_request(
                    level, cleaned.get("primitive_target") or "", cleaned["primitive_arguments"]
                )
            except ValueError as exc:
                where = (
                    "primitive_arguments" if "argument" in str(exc) or "value for" in str(exc) else "primitive_target"
                )
                self.add_error(where, str(exc)[0].upper() + str(exc)[1:])
        simulation = parse_conversation(cleaned["conversation"]).simulation if "conversation" in cleaned else None
        if simulation is None or not (simulation.model or simulation.provider_id) or "model_choice" not in cleaned:
            return cleaned
        provider, _ = parse_model_value(cleaned["model_choice"])
        if simulation.provider_id is not None:
            found = Provider.objects.filter(pk=simulation.provider_id).first()
            if found is None:
                self.add_error(
                    "conversation", f"conversation.simulate.provider_id: no provider {simulation.provider_id}."
                )
                return cleaned
            provider = found
        if simulation.model and provider.model_names and simulation.model not in provider.model_names:
            self.add_error(
                "conversation",
                f"conversation.simulate.model: {provider.name} does not serve {simulation.model!r} "
                f"(it serves {', '.join(provider.model_names)}).",
            )
        return cleaned

    def clean_expected_tools_text(self) -> list[str]:
        names = [line.strip() for line in re.split(r"[\n,]", self.cleaned_data["expected_tools_text"]) if line.strip()]
        bad = [name for name in names if not TOOL_NAME.match(name)]
        if bad:
            raise forms.ValidationError(f"Not a tool name: {', '.join(bad)}. Use one name per line.")
        return names

    def clean_tool_mode(self) -> str:
        return str(self.cleaned_data["tool_mode"] or Scenario.ToolMode.DIRECT)

    def clean_max_tokens(self) -> int:
        value: int | None = self.cleaned_data["max_tokens"]
        return DEFAULT_MAX_TOKENS if value is None else value

    def clean_tags_text(self) -> list[str]:
        tags = [tag.strip().lower() for tag in self.cleaned_data["tags_text"].split(",") if tag.strip()]
        bad = [tag for tag in tags if not re.match(r"^[a-z0-9_-]{1,50}$", tag)]
        if bad:
            # Tags are slugs (`?tag=` in URLs, `--tag` in the CLI, the suite schema): ASCII, so say so.
            raise forms.ValidationError(f"Tags may use unaccented letters, digits, - and _ only: {', '.join(bad)}.")
        return sorted(set(tags))

    def save(self, commit: bool = True) -> Scenario:
        scenario: Scenario = super().save(commit=False)
        scenario.provider, scenario.model = parse_model_value(self.cleaned_data["model_choice"])
        scenario.expected_tools = self.cleaned_data["expected_tools_text"]
        scenario.expected = self.cleaned_data["expected"]
        scenario.expectations = self.cleaned_data["expectations"]
        scenario.conversation = self.cleaned_data["conversation"]
        scenario.fault_injection = self.cleaned_data["fault_injection"]
        if scenario.level in (Scenario.Level.RESOURCE, Scenario.Level.PROMPT):
            scenario.primitive = self.cleaned_data["primitive"]
        if commit:
            scenario.save()
            scenario.tags.set([Tag.objects.get_or_create(name=name)[0] for name in self.cleaned_data["tags_text"]])
            attach_scorers(
                scenario=scenario,
                scorers=self.cleaned_data["scorers"],
                advisory={scorer.pk for scorer in self.cleaned_data["advisory_scorers"]},
            )
        return scenario
