"""The server page's *Evals shipped by this server* actions (import, re-sync, the side-effect acknowledgment) and
direct tool tests (call a tool now; save the call as an execution-level scenario)."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_POST

from evalhub import background
from evalhub.htmx import HtmxHttpRequest
from evalhub.mcp_client import McpConnectionError
from evalhub.providers.model_choices import parse_model_value
from evalhub.scenarios.models import Scenario
from evalhub.server_evals import services
from evalhub.server_evals.tool_test import tool_test_in_background, tool_test_save, tool_test_state
from evalhub.servers.models import McpServer
from evalhub.servers.services import server_inspect
from evalhub.vault import SecretUnavailable
from runs.inspector.content import result_parts

SAVE_SALT = "evalhub.tool-test-save"
SAVE_MAX_AGE_SECONDS = 3600


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
    except (McpConnectionError, SecretUnavailable, background.Busy) as exc:
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
    services.side_effects_acknowledge(server=server, user=request.user)  # 403 unless the server's owner or staff
    messages.success(request, f"Execution-level evals may now call the tools of “{server.name}” for real.")
    back = request.POST.get("next", "")
    if url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        return redirect(back)
    return _back(server)


@require_POST
def server_tool_test(request: HtmxHttpRequest, server_id: int) -> HttpResponse:
    """Call one tool now with the arguments typed on the server page; the result as a fragment."""
    server = get_object_or_404(McpServer, pk=server_id)
    tool = request.POST.get("tool", "")
    context: dict[str, Any] = {"server": server, "tool": tool}
    try:
        arguments = json.loads(request.POST.get("arguments") or "{}")
        if not isinstance(arguments, dict):
            raise ValueError('the arguments must be a JSON object, e.g. {"latitude": 48.85}')
    except (json.JSONDecodeError, ValueError) as exc:
        context["problem"] = f"Arguments: {exc}"
        return render(request, "evalhub/_tool_test_result.html", context)
    try:
        state = tool_test_in_background(
            server=server, tool=tool, arguments=arguments, user=request.user, wait=settings.EVALHUB_WEB_WAIT_SECONDS
        )
    except background.Busy as exc:
        context["problem"] = str(exc)
        return render(request, "evalhub/_tool_test_result.html", context)
    return _tool_test_result(request, server, state)


@require_GET
def server_tool_test_result(request: HtmxHttpRequest, server_id: int, test_id: str) -> HttpResponse:
    """A test still running when the page stopped waiting: polled by its fragment until it ends."""
    server = get_object_or_404(McpServer, pk=server_id)
    state = tool_test_state(test_id=test_id, user=request.user)
    if state is None:
        problem = "This test's result is unknown or expired: call the tool again."
        return render(request, "evalhub/_tool_test_result.html", {"server": server, "problem": problem})
    return _tool_test_result(request, server, state)


def _tool_test_result(request: HttpRequest, server: McpServer, state: dict[str, Any]) -> HttpResponse:
    context: dict[str, Any] = {"server": server, "tool": state.get("tool", ""), "state": state}
    if state["status"] == "failed":
        context["problem"] = state["message"]
    if state["status"] != "done":
        return render(request, "evalhub/_tool_test_result.html", context)
    tested = state["tested"]
    tool, arguments = tested["tool"], tested["arguments"]
    context |= {
        "tested": tested,
        "parts": result_parts(tested["result"]),
        # What a save keeps, signed so the scenario expects exactly what this call answered; a cut result is not
        # what the tool answers, so it cannot be expected.
        "token": ""
        if tested["truncated"]
        else signing.dumps({k: tested[k] for k in ("tool", "arguments", "result")}, salt=SAVE_SALT),
        "default_name": f"{server.name}: {tool} with {json.dumps(arguments, sort_keys=True)}"[:200],
    }
    return render(request, "evalhub/_tool_test_result.html", context)


@require_POST
def server_tool_test_save(request: HttpRequest, server_id: int) -> HttpResponse:
    """The tested call as an execution-level scenario expecting the content it answered."""
    server = get_object_or_404(McpServer, pk=server_id)
    try:
        tested = signing.loads(request.POST.get("token", ""), salt=SAVE_SALT, max_age=SAVE_MAX_AGE_SECONDS)
    except signing.BadSignature:
        messages.error(request, "That test result expired or was altered; call the tool again, then save.")
        return redirect(reverse("server_detail", args=[server.pk]) + "#tools")
    name = (request.POST.get("name") or "").strip()[:200]
    if not name or Scenario.objects.filter(name=name).exists():
        messages.error(
            request, f"Choose another name: {'a scenario is already called that' if name else 'it is empty'}."
        )
        return redirect(reverse("server_detail", args=[server.pk]) + "#tools")
    scenario = tool_test_save(server=server, name=name, user=request.user, **tested)
    messages.success(request, f"Saved “{scenario.name}”: it calls {tested['tool']} and expects the same content.")
    return redirect("scenario_detail", scenario_id=scenario.pk)
