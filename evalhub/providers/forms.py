"""Forms of Settings → Providers and of the models EvalHub itself uses.

Secrets go one way: typed into the form, sealed into the database, never sent back to the browser. The API key
field never renders its value; a secret header shows `••••`, which on saving means "keep what is stored".
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from evalhub import outbound, vault
from evalhub.egress import origin, url_refusal
from evalhub.model_client.config import is_secret_header
from evalhub.providers.model_choices import model_choices, model_value, parse_model_value
from evalhub.providers.models import Provider, SiteSettings
from evalhub.scenarios.models import Scenario
from evalhub.vault import SecretUnavailable

MASK = "••••"
MAX_MODELS = 200
MAX_PRICE = Decimal(100_000)

# Where each kind of server's OpenAI-compatible API lives.
BASE_URL_EXAMPLES = [
    ("OpenAI", "https://api.openai.com/v1"),
    ("Azure OpenAI", "https://YOUR-RESOURCE.openai.azure.com/openai/v1"),
    ("Ollama", "http://localhost:11434/v1"),
    ("vLLM", "http://localhost:8000/v1"),
    ("LM Studio", "http://localhost:1234/v1"),
    ("LiteLLM proxy", "http://localhost:4000/v1"),
    ("OpenRouter", "https://openrouter.ai/api/v1"),
    ("Anthropic", "https://api.anthropic.com/v1/"),
    ("Google Gemini", "https://generativelanguage.googleapis.com/v1beta/openai/"),
]

_HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")
# Set by the SDK from the request itself; a user's value would break it.
_RESERVED_HEADERS = frozenset({"host", "content-length", "content-type", "transfer-encoding", "connection"})
_MODEL_NAME = re.compile(r"^\S{1,200}$")
_PRICE_LINE = re.compile(r"^(?P<model>\S+)\s*=\s*(?P<input>[^/\s]+)\s*/\s*(?P<output>[^/\s]+)$")


def _base_url_help() -> SafeString:
    rows = format_html_join("", "<dt>{}</dt><dd><code>{}</code></dd>", BASE_URL_EXAMPLES)
    return format_html(
        "The address of the OpenAI-compatible API, usually ending in /v1 (EvalHub adds /chat/completions)."
        '<details class="url-examples"><summary>Examples</summary><dl>{}</dl></details>',
        rows,
    )


def _line_error(problems: list[str]) -> forms.ValidationError:
    return forms.ValidationError([forms.ValidationError(problem) for problem in problems])


class SecretHeadersField(forms.CharField):
    """`Name: value` lines. When the form comes back with errors, secret values the user just typed are shown as
    •••• like stored ones: the page must never carry a credential back to the browser."""

    def bound_data(self, data: Any, initial: Any) -> Any:
        lines = []
        for line in str(data or "").splitlines():
            name, sep, value = line.partition(":")
            value = value.strip()
            hidden = sep and is_secret_header(name.strip()) and value and not vault.env_reference(value)
            lines.append(f"{name.strip()}: {MASK}" if hidden else line)
        return "\n".join(lines)


class ProviderForm(forms.ModelForm):
    base_url = forms.CharField(
        label="Base URL",
        max_length=500,
        widget=forms.TextInput(attrs={"placeholder": "https://api.openai.com/v1", "spellcheck": "false"}),
    )
    api_key = forms.CharField(
        label="API key",
        required=False,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off", "spellcheck": "false"}),
        help_text="Stored encrypted and never shown again. Or type ${ENV_VAR} to read it from that environment "
        "variable of the web app and the worker (nothing is stored; an operator must allow the variable in "
        "EVALHUB_SECRET_ENV_ALLOWLIST). Leave empty for a local server without keys. Changing the base URL's scheme, "
        "host or port removes the stored key and secret headers unless you type them again in the same save.",
    )
    clear_api_key = forms.BooleanField(label="Remove the stored API key", required=False)
    headers_text = SecretHeadersField(
        label="Extra headers",
        required=False,
        widget=forms.Textarea(
            attrs={"rows": 3, "class": "mono", "placeholder": "HTTP-Referer: https://evalhub.example\nX-Title: EvalHub"}
        ),
        help_text="Optional, one `Name: value` per line. Values of headers named like a credential (auth, key, "
        f"token, secret, cookie, password) are stored encrypted and shown as {MASK}: leave {MASK} to keep the "
        "stored value. A value may be ${ENV_VAR}.",
    )
    timeout = forms.FloatField(
        label="Timeout (seconds)",
        min_value=1,
        max_value=600,
        initial=60,
        help_text="How long one call may take before EvalHub gives up on it.",
    )
    models_text = forms.CharField(
        label="Models",
        widget=forms.Textarea(attrs={"rows": 4, "class": "mono", "placeholder": "gpt-4.1-mini\ngpt-4o"}),
        help_text="The models this provider serves, one per line, named as the provider names them "
        "(llama3.1:8b, openai/gpt-4o, claude-sonnet-4-5). They are offered wherever a model is picked.",
    )
    prices_text = forms.CharField(
        label="Price overrides",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "class": "mono", "placeholder": "my-model = 0.50 / 1.50"}),
        help_text="Optional, one per line: `model = input / output` in USD per million tokens. Known models are "
        "priced from genai-prices; others show “unknown” until you give a price here.",
    )

    class Meta:
        model = Provider
        fields = ["name", "timeout"]

    field_order = ["name", "base_url", "api_key", "clear_api_key", "headers_text", "timeout", "models_text"]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["base_url"].help_text = _base_url_help()
        provider: Provider = self.instance
        self.dropped_secrets: list[str] = []
        self.moved = False
        self.fields["name"].widget.attrs["placeholder"] = "OpenAI, Ollama on my laptop…"
        try:
            self.stored = provider.secrets()
        except SecretUnavailable:
            # SECRET_KEY changed: the old secrets are gone; saving replaces them.
            self.stored = {"api_key": "", "headers": {}}
        if not provider.pk:
            del self.fields["clear_api_key"]
            return
        if provider.is_builtin:
            # ensure_builtin_providers() finds the environment's OpenAI provider by its name.
            self.fields["name"].disabled = True
            self.fields["name"].help_text = "Built in: the name stays."
        if self.stored["api_key"]:
            self.fields["api_key"].widget.attrs["placeholder"] = f"{MASK} set — leave empty to keep it"
        else:
            del self.fields["clear_api_key"]
        self.initial["base_url"] = provider.base_url
        self.initial["timeout"] = f"{provider.timeout:g}"
        self.initial["headers_text"] = "\n".join(
            [f"{name}: {value}" for name, value in provider.headers.items()]
            + [f"{name}: {MASK}" for name in self.stored["headers"]]
        )
        self.initial["models_text"] = "\n".join(provider.model_names)
        self.initial["prices_text"] = "\n".join(
            f"{model} = {price['input']} / {price['output']}" for model, price in provider.price_overrides.items()
        )

    def clean_base_url(self) -> str:
        url: str = self.cleaned_data["base_url"].strip()
        parts = urlsplit(url)
        if parts.scheme not in {"http", "https"} or not parts.hostname:
            raise forms.ValidationError("Start with http:// or https://, e.g. http://localhost:11434/v1.")
        if parts.username or parts.password:
            raise forms.ValidationError("Put credentials in the API key or a header, not in the URL.")
        if parts.query or parts.fragment:
            raise forms.ValidationError("Leave out ?query and #fragment; Azure's api-version goes in a header.")
        if (refusal := url_refusal(url, outbound.egress_policy(owner_is_staff=True))) is not None:
            raise forms.ValidationError(refusal)  # a provider is staff's (see Provider.to_config)
        # Another scheme, host or port: the stored secrets were given for the old address (cleaned before them).
        self.moved = bool(self.instance.pk) and origin(url) != origin(self.instance.base_url)
        return url

    def clean_api_key(self) -> str:
        key: str = self.cleaned_data["api_key"]
        if key.startswith("${") and vault.env_reference(key) is None:
            raise forms.ValidationError("An environment variable reference looks like ${OPENAI_API_KEY}.")
        if any(ch.isspace() for ch in key):
            raise forms.ValidationError("An API key has no spaces or line breaks; paste it again.")
        # Only staff reach this form (providers/views.py).
        if problems := vault.reference_problems({"API key": key}, is_staff=True):
            raise forms.ValidationError(problems)
        return key

    def clean_headers_text(self) -> dict[str, str]:
        """Every header, secret ones with their stored value where the user left ••••."""
        headers: dict[str, str] = {}
        problems: list[str] = []
        stored = {name.lower(): (name, value) for name, value in self.stored["headers"].items()}
        for number, line in enumerate(self.cleaned_data["headers_text"].splitlines(), start=1):
            if not line.strip():
                continue
            name, sep, value = (part.strip() for part in line.partition(":"))
            if not sep or not name:
                problems.append(f"Line {number}: write it as `Name: value`.")
            elif not _HEADER_NAME.match(name):
                problems.append(f"Line {number}: “{name}” is not a header name (letters, digits and - only).")
            elif name.lower() in _RESERVED_HEADERS:
                problems.append(f"Line {number}: {name} is set by EvalHub itself.")
            elif name.lower() in {n.lower() for n in headers}:
                problems.append(f"Line {number}: {name} is given twice.")
            elif value == MASK and self.moved and name.lower() in stored:
                self.dropped_secrets.append(f"header {name}")
            elif value == MASK:
                if name.lower() not in stored:
                    problems.append(
                        f"Line {number}: type the value of {name} — secret values are never shown, "
                        f"so {MASK} only keeps one that is already stored."
                    )
                else:
                    headers[name] = stored[name.lower()][1]
            elif not value:
                problems.append(f"Line {number}: {name} has no value.")
            else:
                problems += vault.reference_problems({f"Line {number}: {name}": value}, is_staff=True)
                headers[name] = value
        if problems:
            raise _line_error(problems)
        return headers

    def clean_models_text(self) -> list[str]:
        models: list[str] = []
        problems: list[str] = []
        for number, line in enumerate(self.cleaned_data["models_text"].splitlines(), start=1):
            name = line.strip()
            if not name or name in models:
                continue
            if not _MODEL_NAME.match(name):
                problems.append(f"Line {number}: “{name}” has spaces; write one model per line.")
            models.append(name)
        if problems:
            raise _line_error(problems)
        if not models:
            raise forms.ValidationError("List at least one model, e.g. gpt-4.1-mini.")
        if len(models) > MAX_MODELS:
            raise forms.ValidationError(f"At most {MAX_MODELS} models.")
        return models

    def clean_prices_text(self) -> dict[str, dict[str, str]]:
        prices: dict[str, dict[str, str]] = {}
        lines: dict[str, int] = {}
        problems: list[str] = []
        for number, line in enumerate(self.cleaned_data["prices_text"].splitlines(), start=1):
            if not line.strip():
                continue
            match = _PRICE_LINE.match(line.strip().replace("$", ""))
            if not match:
                problems.append(f"Line {number}: write it as `model = input / output`, e.g. `my-model = 0.50 / 1.50`.")
                continue
            model = match["model"]
            amounts = [_price(match[part]) for part in ("input", "output")]
            bad = [match[part] for part, amount in zip(("input", "output"), amounts, strict=True) if amount is None]
            if bad:
                problems.append(
                    f"Line {number}: “{bad[0]}” is not a price; use a number of USD per million tokens, like 0.50."
                )
            elif model in lines:
                problems.append(f"Line {number}: {model} already has a price on line {lines[model]}.")
            else:
                lines[model] = number
                prices[model] = {"input": f"{amounts[0]:f}", "output": f"{amounts[1]:f}"}
        if problems:
            raise _line_error(problems)
        self._price_lines = lines
        return prices

    def clean(self) -> dict[str, Any] | None:
        cleaned = super().clean()
        models = self.cleaned_data.get("models_text")
        prices = self.cleaned_data.get("prices_text")
        if models is None:
            return cleaned
        if prices:
            unknown = [model for model in prices if model not in models]
            if unknown:
                self.add_error(
                    "prices_text",
                    _line_error(
                        [f"Line {self._price_lines[m]}: {m} is not in the Models list above." for m in unknown]
                    ),
                )
        if self.instance.pk:
            # A scenario's model must stay on offer, or its edit form could not show what it runs.
            used = (
                Scenario.objects.filter(provider=self.instance)
                .exclude(model__in=models)
                .order_by("name")
                .values_list("name", "model")
            )
            problems = [
                f"{model} is used by scenario “{name}”: keep it, or change the scenario first." for name, model in used
            ]
            if problems:
                self.add_error("models_text", _line_error(problems))
        return cleaned

    def save(self, commit: bool = True) -> Provider:
        provider: Provider = super().save(commit=False)
        before = (provider.base_url, dict(provider.headers), self.stored, provider.timeout)
        provider.base_url = self.cleaned_data["base_url"]
        headers: dict[str, str] = self.cleaned_data["headers_text"]
        # A header named like a credential, or read from the environment, is sealed like the key.
        secret = {n: v for n, v in headers.items() if is_secret_header(n) or vault.env_reference(v)}
        provider.headers = {n: v for n, v in headers.items() if n not in secret}
        api_key = self.cleaned_data["api_key"]
        if not api_key and not self.cleaned_data.get("clear_api_key") and self.stored["api_key"]:
            api_key = "" if self.moved else self.stored["api_key"]
            self.dropped_secrets += ["API key"] if self.moved else []
        provider.set_secrets(api_key=api_key, headers=secret)
        provider.model_names = self.cleaned_data["models_text"]
        provider.price_overrides = self.cleaned_data["prices_text"]
        after = (provider.base_url, provider.headers, {"api_key": api_key, "headers": secret}, provider.timeout)
        if provider.pk and before != after:
            provider.last_test = None  # it tested a connection that no longer exists
        if commit:
            provider.save()
        return provider

    def key_was_typed(self) -> bool:
        """The form failed with a key typed in: it is not sent back, so the page asks for it again."""
        return self.is_bound and bool(self.data.get("api_key")) and bool(self.errors)


def _price(text: str) -> Decimal | None:
    try:
        amount = Decimal(text)
    except InvalidOperation:
        return None
    if not amount.is_finite() or amount < 0 or amount > MAX_PRICE:
        return None
    return amount


NO_GENERATION_MODEL = "none: built-in templates write the scorer code"
NO_JUDGE_MODEL = "none: choose a model for each judge"


class SiteSettingsForm(forms.Form):
    generation_choice = forms.ChoiceField(
        label="Scorer generation model",
        required=False,
        help_text="Writes code scorers from your plain-English descriptions. Empty, or the offline model: "
        "EvalHub's built-in templates write them instead (no model, no cost).",
    )
    judge_choice = forms.ChoiceField(
        label="Default judge model",
        required=False,
        help_text="LLM judges without a model of their own use this one. Empty: each judge needs its own model. "
        "The offline model cannot grade a transcript, so it is not offered.",
    )

    def __init__(self, *args: Any, site: SiteSettings, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.site = site
        for prefix, empty in (("generation", NO_GENERATION_MODEL), ("judge", NO_JUDGE_MODEL)):
            choices = model_choices(judging=prefix == "judge")
            offered = {value for _, group in choices for value, _ in group}
            field = self.fields[f"{prefix}_choice"]
            assert isinstance(field, forms.ChoiceField)
            field.choices = [("", f"— {empty} —"), *choices]
            provider, model = getattr(site, f"{prefix}_provider"), getattr(site, f"{prefix}_model")
            if provider is None or not model:
                continue
            value = self.initial[f"{prefix}_choice"] = model_value(provider, model)
            if value not in offered:
                # Its provider stopped listing it: keep it selectable, or saving the other choice would drop it.
                field.choices = [*field.choices, ("No longer listed by its provider", [(value, model)])]

    def _clean_choice(self, name: str) -> tuple[Provider | None, str]:
        value: str = self.cleaned_data[name]
        if not value:
            return None, ""
        try:
            return parse_model_value(value)
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from None

    def clean_generation_choice(self) -> tuple[Provider | None, str]:
        return self._clean_choice("generation_choice")

    def clean_judge_choice(self) -> tuple[Provider | None, str]:
        return self._clean_choice("judge_choice")

    def save(self) -> SiteSettings:
        site = self.site
        site.generation_provider, site.generation_model = self.cleaned_data["generation_choice"]
        site.judge_provider, site.judge_model = self.cleaned_data["judge_choice"]
        site.save()
        return site
