from __future__ import annotations

from typing import Any

from django import forms

from evalhub.providers.model_choices import model_choices, model_value, parse_model_value
from evalhub.providers.models import SiteSettings
from scorers import judge, sandbox
from scorers.models import Scorer

# A placeholder, not initial code: sample code in the editor would be saved as the scorer without a word.
CODE_PLACEHOLDER = """async ({ input, expected, output }) => {
  // Return a score from 0 to 1, for example:
  // return output.allToolCalls.some((tc) => tc.toolName === "get_weather") ? 1 : 0;
}

Write the function here, or press the wand (top right) to generate it from a description."""


def default_judge_model() -> str:
    """The default judge model from Settings as "model · provider", or "" when none can judge."""
    site = SiteSettings.load()
    if site.judge_provider is None or not site.judge_model or site.judge_provider.is_offline:
        return ""
    return f"{site.judge_model} · {site.judge_provider.name}"


class ScorerForm(forms.ModelForm):
    judge_model_choice = forms.ChoiceField(
        label="Judge model",
        required=False,
        help_text="The model that reads the transcript and picks a label. The offline model cannot judge, so it is "
        "not offered.",
    )

    class Meta:
        model = Scorer
        fields = ["name", "description", "kind", "code", "system_prompt", "labels"]
        widgets = {
            "description": forms.Textarea(attrs={"rows": 2}),
            "kind": forms.RadioSelect,
            "code": forms.Textarea(
                attrs={"rows": 18, "class": "code-editor", "spellcheck": "false", "placeholder": CODE_PLACEHOLDER}
            ),
            "system_prompt": forms.Textarea(attrs={"rows": 8}),
            "labels": forms.Textarea(attrs={"rows": 4, "class": "mono", "placeholder": "GOOD|1\nBAD|0"}),
        }
        help_texts = {
            "code": "async ({ input, expected, output }) => number from 0 to 1. output is { text, transcript, "
            "toolCalls, allToolCalls }. console.log output is shown with the result.",
            "labels": "One per line as LABEL|score, scores from 0 to 1, e.g. GOOD|1 and BAD|0.",
        }

    field_order = ["name", "description", "kind", "code", "system_prompt", "labels", "judge_model_choice"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["judge_model_choice"]
        assert isinstance(field, forms.ChoiceField)
        self.default_judge = default_judge_model()
        empty = f"Default judge model: {self.default_judge}" if self.default_judge else "— choose a judge model —"
        field.choices = [("", empty), *model_choices(judging=True)]
        scorer: Scorer = self.instance
        if scorer.pk and scorer.judge_provider is not None and scorer.judge_model:
            self.initial["judge_model_choice"] = model_value(scorer.judge_provider, scorer.judge_model)

    def clean_judge_model_choice(self) -> str:
        value: str = self.cleaned_data["judge_model_choice"]
        if value:
            try:
                parse_model_value(value)
            except ValueError as exc:
                raise forms.ValidationError(str(exc)) from None
        return value

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("kind") == Scorer.Kind.CODE:
            code = data.get("code", "")
            if not code.strip():
                self.add_error(
                    "code",
                    "The code is empty: write the scorer function, or press the wand at the top right of the code "
                    "field to generate it from a description.",
                )
            elif (compiled := sandbox.compile_problem(code)) is not None:
                self.add_error("code", compiled.error)  # says the line and column of a syntax error
        elif data.get("kind") == Scorer.Kind.JUDGE:
            chosen = data.get("judge_model_choice") or "judge_model_choice" in self.errors
            if not chosen and not self.default_judge:
                self.add_error(
                    "judge_model_choice",
                    "Choose a judge model: no default judge model is set in Settings, and the offline model cannot "
                    "grade a transcript (the judge would be skipped on every run).",
                )
            if not data.get("system_prompt", "").strip():
                self.add_error("system_prompt", "Tell the judge what to evaluate.")
            try:
                judge.parse_labels(data.get("labels", ""))
            except judge.LabelError as exc:
                for problem in exc.problems:
                    self.add_error("labels", problem)
        return data

    def save(self, commit: bool = True) -> Scorer:
        scorer: Scorer = super().save(commit=False)
        choice = self.cleaned_data.get("judge_model_choice") or ""
        scorer.judge_provider, scorer.judge_model = parse_model_value(choice) if choice else (None, "")
        return scorer
