"""Settings: model providers (add, edit, test, delete) and the models EvalHub itself uses.

Everyone signed in sees the providers and may press Test (it shows whether a provider works, never its
secrets); only staff change them, because providers hold credentials.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.timesince import timesince
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from evalhub import background
from evalhub.htmx import HtmxHttpRequest
from evalhub.outbound import dropped_secrets_message
from evalhub.providers import services as provider_services
from evalhub.providers.forms import ProviderForm, SiteSettingsForm
from evalhub.providers.models import Provider, SiteSettings, ensure_builtin_providers
from evalhub.providers.services import ModelPriceInfo, ProviderNotDeletable
from evalhub.vault import SecretUnavailable

View = Callable[..., HttpResponse]
STAFF_ONLY = "Only staff can change model providers and the models EvalHub uses: providers hold credentials."
INTERRUPTED = "the test did not finish: EvalHub's web process stopped during it; test again"
# Kept out of Django's error reports (and so out of logs and admin e-mails) if a view fails.
SECRET_FIELDS = ("api_key", "headers_text")


def staff_required(view: View) -> View:
    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_staff:
            raise PermissionDenied(STAFF_ONLY)
        return view(request, *args, **kwargs)

    return wrapper


@dataclass(frozen=True)
class TestOutcome:
    ok: bool
    model: str
    at: datetime
    latency_ms: int | None = None
    message: str = ""
    pending: bool = False  # still running in the background; the page polls until it is not

    @property
    def when(self) -> str:
        if timezone.now() - self.at < timedelta(minutes=1):
            return "just now"
        return f"{timesince(self.at)} ago"

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> TestOutcome | None:
        if not data:
            return None
        if data.get("pending"):
            at = datetime.fromisoformat(data["at"])
            if provider_services.test_is_pending(data):
                return cls(ok=False, model=str(data.get("model", "")), at=at, pending=True)
            return cls(ok=False, model=str(data.get("model", "")), at=at, message=INTERRUPTED)
        return cls(
            ok=bool(data.get("ok")),
            model=str(data.get("model", "")),
            at=datetime.fromisoformat(data["at"]),
            latency_ms=data.get("latency_ms"),
            message=str(data.get("message", "")),
        )


@dataclass(frozen=True)
class ModelRow:
    name: str
    price: ModelPriceInfo
    last_test: TestOutcome | None  # only on the row of the model tested last


@dataclass(frozen=True)
class ProviderCard:
    """One provider as the Settings page shows it: everything but its secrets."""

    provider: Provider
    key_status: str
    header_names: list[str]
    secret_header_names: list[str]
    models: list[ModelRow]
    scenario_count: int
    last_test: TestOutcome | None

    @property
    def from_environment(self) -> bool:
        return self.provider.is_builtin and not self.provider.is_offline


def provider_card(provider: Provider) -> ProviderCard:
    try:
        secret_headers = sorted(provider.secrets()["headers"])
    except SecretUnavailable:
        secret_headers = []
    last_test = TestOutcome.from_json(provider.last_test)
    # Annotated by the list query; counted here for a single provider.
    scenario_count = provider.__dict__.get("scenario_count")
    if scenario_count is None:
        scenario_count = provider.scenarios.count()
    return ProviderCard(
        provider=provider,
        key_status=provider_services.api_key_status(provider),
        header_names=sorted(provider.headers),
        secret_header_names=secret_headers,
        models=[
            ModelRow(
                name=model,
                price=provider_services.model_price(provider=provider, model=model),
                last_test=last_test if last_test and last_test.model == model else None,
            )
            for model in provider.model_names
        ],
        scenario_count=scenario_count,
        last_test=last_test,
    )


def _render_settings(request: HttpRequest, models_form: SiteSettingsForm) -> HttpResponse:
    providers = Provider.objects.annotate(scenario_count=Count("scenarios"))
    context = {
        "section": "settings",
        "cards": [provider_card(provider) for provider in providers],
        "models_form": models_form,
        "can_manage": request.user.is_staff,
        "staff_only": STAFF_ONLY,
    }
    return render(request, "evalhub/settings.html", context)


@require_GET
def settings_page(request: HttpRequest) -> HttpResponse:
    # The offline model, and OpenAI when OPENAI_API_KEY is set, exist before anyone clicks anything.
    ensure_builtin_providers()
    return _render_settings(request, SiteSettingsForm(site=SiteSettings.load()))


@require_POST
@staff_required
def site_settings_edit(request: HttpRequest) -> HttpResponse:
    form = SiteSettingsForm(request.POST, site=SiteSettings.load())
    if not form.is_valid():
        return _render_settings(request, form)
    form.save()
    messages.success(request, "Saved the models EvalHub uses.")
    return redirect(reverse("settings") + "#models")


@sensitive_post_parameters(*SECRET_FIELDS)
@require_http_methods(["GET", "POST"])
@staff_required
def provider_create(request: HttpRequest) -> HttpResponse:
    form = ProviderForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        provider = form.save()
        _warn_missing_env(request, provider)
        messages.success(request, f"Added provider “{provider.name}”. Press Test next to a model to check it.")
        return redirect(reverse("settings") + f"#provider-{provider.pk}")
    return _render_form(request, form, None)


@sensitive_post_parameters(*SECRET_FIELDS)
@require_http_methods(["GET", "POST"])
@staff_required
def provider_edit(request: HttpRequest, provider_id: int) -> HttpResponse:
    provider = get_object_or_404(Provider, pk=provider_id)
    if provider.is_offline:
        messages.info(request, "The built-in offline model has nothing to configure.")
        return redirect("settings")
    form = ProviderForm(request.POST or None, instance=provider)
    if request.method == "POST" and form.is_valid():
        provider = form.save()
        _warn_missing_env(request, provider)
        messages.success(request, f"Saved provider “{provider.name}”.")
        if form.dropped_secrets:
            messages.warning(request, dropped_secrets_message(form.dropped_secrets))
        return redirect(reverse("settings") + f"#provider-{provider.pk}")
    return _render_form(request, form, provider)


def _render_form(request: HttpRequest, form: ProviderForm, provider: Provider | None) -> HttpResponse:
    if form.key_was_typed():
        key = form["api_key"]
        key.help_text = f"Type the API key again: it is never sent back to the browser. {key.help_text}"
    context = {"section": "settings", "form": form, "provider": provider}
    return render(request, "evalhub/provider_form.html", context)


def _warn_missing_env(request: HttpRequest, provider: Provider) -> None:
    try:
        provider.to_config()
    except SecretUnavailable as exc:
        messages.warning(request, f"{exc} Test will fail until it is.")


@require_http_methods(["GET", "POST"])
@staff_required
def provider_delete(request: HttpRequest, provider_id: int) -> HttpResponse:
    provider = get_object_or_404(Provider, pk=provider_id)
    if request.method == "POST":
        name = provider.name
        try:
            provider_services.provider_delete(provider=provider)
        except ProviderNotDeletable as exc:
            messages.error(request, str(exc))
            return redirect("settings")
        messages.success(request, f"Deleted provider “{name}”.")
        return redirect("settings")
    site = SiteSettings.load()
    context = {
        "section": "settings",
        "provider": provider,
        "blocked": provider_services.provider_delete_blocker(provider=provider),
        "run_count": provider.runs.count(),
        "used_by_settings": provider.pk in {site.generation_provider_id, site.judge_provider_id},
    }
    return render(request, "evalhub/provider_confirm_delete.html", context)


@require_POST
def provider_test(request: HtmxHttpRequest, provider_id: int) -> HttpResponse:
    """Test in the background and wait a few seconds for it: the models table for htmx (which keeps polling
    while the test goes on), the Settings page otherwise."""
    provider = get_object_or_404(Provider, pk=provider_id)
    model = request.POST.get("model", "")
    if model not in provider.model_names:
        return HttpResponseBadRequest(f"{provider.name} does not list the model {model!r}.")
    try:
        result = provider_services.provider_test_in_background(
            provider=provider, model=model, wait=settings.EVALHUB_WEB_WAIT_SECONDS, user=request.user
        )
    except background.Busy as exc:
        result = {"ok": False, "busy": str(exc)}
    if request.htmx:
        return _models_fragment(request, provider.pk, busy=result.get("busy", ""))
    if result.get("busy"):
        messages.error(request, result["busy"])
    elif result.get("pending"):
        messages.info(request, f"{provider.name}: still testing {model}; its row shows the result when it is done.")
    elif result["ok"]:
        messages.success(request, f"{provider.name}: {model} answered in {result['latency_ms']} ms.")
    else:
        messages.error(request, f"{provider.name}: {model} failed the test — {result['message']}.")
    return redirect(reverse("settings") + f"#provider-{provider.pk}")


@require_GET
def provider_models(request: HtmxHttpRequest, provider_id: int) -> HttpResponse:
    """A provider's models table: what the page polls while a test runs."""
    get_object_or_404(Provider, pk=provider_id)
    return _models_fragment(request, provider_id)


def _models_fragment(request: HttpRequest, provider_id: int, busy: str = "") -> HttpResponse:
    provider = Provider.objects.annotate(scenario_count=Count("scenarios")).get(pk=provider_id)
    context = {"card": provider_card(provider), "can_manage": request.user.is_staff, "busy": busy}
    return render(request, "evalhub/settings.html#provider-models", context)
