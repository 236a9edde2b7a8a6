"""Settings → API keys: create a key (shown once), see every key of yours, revoke one."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from evalhub.api_keys import services
from evalhub.api_keys.forms import ApiKeyForm
from evalhub.api_keys.models import ApiKey


@require_http_methods(["GET", "POST"])
def api_key_list(request: HttpRequest) -> HttpResponse:
    is_staff = bool(getattr(request.user, "is_staff", False))
    form = ApiKeyForm(request.POST or None, is_staff=is_staff)
    created: tuple[ApiKey, str] | None = None
    if request.method == "POST" and form.is_valid():
        try:
            created = services.api_key_create(
                user=request.user,  # type: ignore[arg-type]
                name=form.cleaned_data["name"],
                scopes=form.cleaned_data["scopes"],
                expires_at=form.cleaned_data["expires"],
            )
        except services.ApiKeyInvalid as exc:
            form.add_error(None, str(exc))
        else:
            # A fresh form: the page shows the new key once, rendered here and never redirected to or stored.
            form = ApiKeyForm(is_staff=is_staff)
    context = {
        "section": "settings",
        "form": form,
        "keys": services.api_keys_of(request.user),
        "new_key": created[0] if created else None,
        "new_raw_key": created[1] if created else None,
        "api_url": request.build_absolute_uri("/api/v1"),
    }
    response = render(request, "evalhub/api_keys.html", context, status=201 if created else 200)
    if created:
        response["Cache-Control"] = "no-store"  # the one page that holds the raw key must not be cached
    return response


@require_POST
def api_key_revoke(request: HttpRequest, key_id: int) -> HttpResponse:
    key = ApiKey.objects.filter(pk=key_id, user=request.user).first()  # type: ignore[misc]
    if key is None:
        raise Http404("No such API key of yours.")
    services.api_key_revoke(key=key)
    messages.success(request, f"Revoked “{key.name}” ({key.prefix}…). Requests with it are refused from now on.")
    return redirect("api_keys")
