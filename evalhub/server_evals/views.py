"""The server page's *Evals shipped by this server* actions: import, re-sync, and the side-effect acknowledgment."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST

from evalhub.mcp_client import McpConnectionError
from evalhub.providers.model_choices import parse_model_value
from evalhub.server_evals import services
from evalhub.servers.models import McpServer
from evalhub.servers.services import server_inspect
from evalhub.vault import SecretUnavailable


def _back(server: McpServer) -> HttpResponse:
    return redirect(reverse("server_detail", args=[server.pk]) + "#shipped-evals")


@require_POST
def server_evals_import(request: HttpRequest, server_id: int) -> HttpResponse:
    """Import the ticked evals (or all of them), on the chosen model, and update the linked scenarios."""
    server = get_object_or_404(McpServer, pk=server_id)
    ids = None if "all" in request.POST else request.POST.getlist("eval_id")
    if ids == []:
        messages.warning(request, "Tick the evals to import, or press Import all.")
        return _back(server)
    target: dict[str, Any] = {}
    if request.POST.get("model"):
        try:
            target["provider"], target["model"] = parse_model_value(request.POST["model"])
        except ValueError as exc:
            messages.error(request, str(exc))
            return _back(server)
    return _sync(request, server, ids, **target)


@require_POST
def server_evals_resync(request: HttpRequest, server_id: int) -> HttpResponse:
    """Inspect the server again, then bring every scenario linked to one of its evals up to date."""
    server = get_object_or_404(McpServer, pk=server_id)
    try:
        server_inspect(server=server)
    except (McpConnectionError, SecretUnavailable) as exc:
        messages.error(request, f"Re-sync failed: the inspection did not succeed. {getattr(exc, 'message', exc)}")
        return _back(server)
    return _sync(request, server, [])


def _sync(request: HttpRequest, server: McpServer, ids: list[str] | None, **target: Any) -> HttpResponse:
    try:
        report = services.shipped_evals_sync(server=server, user=request.user, import_ids=ids, **target)
    except (services.NotInspected, ValueError) as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, f"Shipped evals of “{server.name}”: {report.summary()}.")
    return _back(server)


@require_POST
def server_side_effects_acknowledge(request: HttpRequest, server_id: int) -> HttpResponse:
    server = get_object_or_404(McpServer, pk=server_id)
    services.side_effects_acknowledge(server=server, user=request.user)
    messages.success(request, f"Execution-level evals may now call the tools of “{server.name}” for real.")
    back = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return redirect(back)
    return _back(server)
