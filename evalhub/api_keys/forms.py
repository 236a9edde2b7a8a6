"""The form that creates an API key: a name, its scopes and when it expires."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django import forms

from evalhub.api_keys.models import ApiKey
from evalhub.api_keys.services import parse_expiry

EXPIRY_CHOICES = [
    ("7d", "In 7 days"),
    ("30d", "In 30 days"),
    ("90d", "In 90 days"),
    ("365d", "In a year"),
    ("", "Never"),
]


class ApiKeyForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        widget=forms.TextInput(attrs={"placeholder": "GitHub Actions: nightly evals"}),
        help_text="Where the key is used, so you know which one to revoke later.",
    )
    scopes = forms.MultipleChoiceField(
        widget=forms.CheckboxSelectMultiple,
        initial=[ApiKey.Scope.READ.value, ApiKey.Scope.WRITE.value, ApiKey.Scope.EXPORT.value],
        help_text="CI that starts runs and downloads a JUnit report needs read, write and export.",
    )
    expires = forms.ChoiceField(choices=EXPIRY_CHOICES, initial="90d", required=False)

    def __init__(self, *args: Any, is_staff: bool, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        scopes = self.fields["scopes"]
        assert isinstance(scopes, forms.MultipleChoiceField)
        # evaluate:admin manages stdio servers (commands run on this machine): staff only, as in the UI.
        scopes.choices = [(v, label) for v, label in ApiKey.Scope.choices if is_staff or v != ApiKey.Scope.ADMIN]

    def clean_expires(self) -> datetime | None:
        try:
            return parse_expiry(self.cleaned_data.get("expires") or "")
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None
