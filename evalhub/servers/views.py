"""Servers: register MCP servers, inspect what they offer, and see how their tools change.

Everyone may inspect and use every server; who may change one is evalhub.permissions' rule (its creator or staff,
and only staff for stdio servers: saving one decides which command EvalHub runs on this machine).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, OuterRef, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from evalhub import background
from evalhub.htmx import HtmxHttpRequest
from evalhub.mcp_client.errors import McpConnectionError
from evalhub.mcp_client.quality import QualityReport, quality_report
from evalhub.mcp_client.snapshot import ToolsDiff, diff_tools
from evalhub.model_client.offline.schema_fill import example_for
from evalhub.outbound import dropped_secrets_message
from evalhub.permissions import STDIO_STAFF_ONLY, can_change, is_staff, require_change
from evalhub.providers.model_choices import model_choices
from evalhub.server_evals import services as server_evals
from evalhub.servers import http_settings, services
from evalhub.servers.forms import ServerForm
from evalhub.servers.models import McpServer, ToolSnapshot
from evalhub.vault import SecretUnavailable
from runs.tool_usage.services import server_tool_usage


def can_edit(user: AbstractBaseUser | AnonymousUser, server: McpServer | None = None) -> bool:
    """May `user` change this server (evalhub.permissions), or, without one, add a stdio server (staff only)?"""
    return is_staff(user) if server is None else can_change(user, server)


def _require_edit(request: HttpRequest, server: McpServer | None, transport: str | None = None) -> None:
    """403 when the user may not save this server, or may not turn it into a stdio one."""
    if server is not None:
        require_change(request.user, server)
    if transport == McpServer.Transport.STDIO and not is_staff(request.user):
        raise PermissionDenied(STDIO_STAFF_ONLY)


# Tool annotations worth a badge when a server sets them to true (MCP spec names, our labels).
HINTS = (
    ("readOnlyHint", "read-only", ""),
    ("destructiveHint", "destructive", "badge-warn"),
    ("idempotentHint", "idempotent", ""),
    ("openWorldHint", "open world", ""),
)


def tool_rows(tools: list[dict[str, Any]], report: QualityReport) -> list[dict[str, Any]]:
    """Tools as the pages show them: parameters, annotation badges, quality findings and text to filter on."""
    rows = []
    for tool in tools:
        schema = tool.get("inputSchema") or {}
        required = set(schema.get("required") or [])
        properties = schema.get("properties")
        if not isinstance(properties, dict):
            properties = {}
        annotations = tool.get("annotations") or {}
        rows.append(
            {
                **tool,
                "params": [{"name": name, "required": name in required} for name in properties],
                "hints": [(label, css) for key, label, css in HINTS if annotations.get(key) is True],
                "findings": report.for_tool(tool["name"]),
                "search": " ".join(str(tool.get(key) or "") for key in ("name", "title", "description")).lower(),
                # A starting point for a direct test: every property filled with the smallest valid value.
                "try_arguments": json.dumps(example_for(schema) or {}, indent=2),
            }
        )
    return rows


def _tools_changed(server: McpServer, snapshot: ToolSnapshot | None) -> tuple[ToolsDiff | None, bool]:
    """The diff between the latest snapshot and the one before it, and whether the latest inspection saw it."""
    previous = snapshot.previous() if snapshot else None
    if snapshot is None or previous is None:
        return None, False
    diff = diff_tools(previous.tools, snapshot.tools)
    recent = server.last_inspected_at is None or snapshot.created_at >= server.last_inspected_at
    return diff, recent and bool(diff)


def _failed_at(server: McpServer) -> datetime | None:
    at = parse_datetime(server.last_error.get("at") or "") if server.last_error else None
    if at is not None and timezone.is_naive(at):
        at = timezone.make_aware(at, UTC)
    return at


@require_GET
def server_list(request: HttpRequest) -> HttpResponse:
    latest = ToolSnapshot.objects.filter(server=OuterRef("pk")).order_by("-created_at", "-id").values("pk")[:1]
    servers = list(
        McpServer.objects.annotate(
            latest_snapshot_id=Subquery(latest),
            snapshot_count=Count("snapshots", distinct=True),
            scenario_count=Count("scenarios", distinct=True),
        ).order_by("name")  # Meta.ordering does not apply to aggregate queries
    )
    snapshots = ToolSnapshot.objects.in_bulk([s.latest_snapshot_id for s in servers if s.latest_snapshot_id])
    rows = []
    for server in servers:
        snapshot = snapshots.get(server.latest_snapshot_id)
        # Only a second snapshot can differ; skip the query for servers that never changed.
        diff, recent = _tools_changed(server, snapshot) if server.snapshot_count > 1 else (None, False)
        changes = diff if recent else None
        rows.append({"server": server, "snapshot": snapshot, "changes": changes, "failed_at": _failed_at(server)})
    context = {"section": "servers", "rows": rows, "can_add_stdio": can_edit(request.user)}
    return render(request, "evalhub/server_list.html", context)


@require_http_methods(["GET", "POST"])
def server_create(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        _require_edit(request, None, request.POST.get("transport"))
    is_staff = can_edit(request.user)
    initial = {"transport": McpServer.Transport.STDIO if is_staff else McpServer.Transport.HTTP}
    form = ServerForm(request.POST or None, initial=initial, is_staff=is_staff)
    if request.method == "POST" and form.is_valid():
        server = form.save(commit=False)
        server.created_by = request.user  # type: ignore[assignment]
        server.save()
        messages.success(request, f"Registered “{server.name}”. Press Inspect to connect and list what it offers.")
        return redirect("server_detail", server_id=server.pk)
    return render(request, "evalhub/server_form.html", {"section": "servers", "form": form})


@require_http_methods(["GET", "POST"])
def server_edit(request: HttpRequest, server_id: int) -> HttpResponse:
    server = get_object_or_404(McpServer, pk=server_id)
    _require_edit(request, server, request.POST.get("transport") if request.method == "POST" else None)
    form = ServerForm(request.POST or None, instance=server, is_staff=can_edit(request.user))
    if request.method == "POST" and form.is_valid():
        server = form.save()
        messages.success(request, f"Saved “{server.name}”. Inspect it again to check the new settings.")
        if form.dropped_secrets:
            messages.warning(request, dropped_secrets_message(form.dropped_secrets))
        return redirect("server_detail", server_id=server.pk)
    return render(request, "evalhub/server_form.html", {"section": "servers", "form": form, "server": server})


@require_http_methods(["GET", "POST"])
def server_delete(request: HttpRequest, server_id: int) -> HttpResponse:
    server = get_object_or_404(McpServer, pk=server_id)
    _require_edit(request, server)
    if request.method == "POST":
        try:
            services.server_delete(server=server)
        except services.ServerInUse as exc:
            messages.error(request, str(exc))
            return redirect("server_delete", server_id=server.pk)
        messages.success(request, f"Deleted server “{server.name}”.")
        return redirect("server_list")
    context = {
        "section": "servers",
        "server": server,
        "scenarios": server.scenarios.order_by("name"),
        "run_count": server.runs.count(),
    }
    return render(request, "evalhub/server_confirm_delete.html", context)


def _inspection_context(server: McpServer, evals_page: str | None = None) -> dict[str, Any]:
    snapshot = server.latest_snapshot()
    diff, recent = _tools_changed(server, snapshot)
    invalid_tools = (server.last_inspection or {}).get("invalid_tools", [])
    evals_capped = server_evals.shipped_cap(server)
    report = quality_report(snapshot.tools, invalid_tools, evals_capped=evals_capped) if snapshot else None
    # The shipped evals a page at a time; removed-upstream ones on the first page, where they are seen.
    page = Paginator(server.shipped_evals.all(), server_evals.PAGE_SIZE).get_page(evals_page)
    shipped = server_evals.shipped_rows(server, page.object_list)
    if page.number == 1:
        shipped += server_evals.removed_rows(server)
    return {
        "server": server,
        "state": server.inspection_state(),
        "inspection": server.last_inspection,
        "error": server.last_error,
        "failed_at": _failed_at(server),
        "snapshot": snapshot,
        "tools": tool_rows(snapshot.tools, report) if snapshot and report else [],
        "changes": diff,
        "changes_are_new": recent,
        "quality": report,
        "shipped": shipped,
        "shipped_page": page,
        "evals_capped": evals_capped,
        "importable": any(row["scenario"] is None for row in shipped),  # else no Import buttons
        "model_choices": model_choices(),
        "snapshots": server.snapshots.only("pk", "server_id", "tools_hash", "created_at", "last_seen_at")[:10],
        "edited_since": bool(
            server.last_inspected_at and server.updated_at and server.updated_at > server.last_inspected_at
        ),
    }


@require_GET
def server_detail(request: HtmxHttpRequest, server_id: int) -> HttpResponse:
    server = get_object_or_404(McpServer, pk=server_id)
    try:
        secret_names, secrets_lost = server.secret_names(), False
    except SecretUnavailable:
        secret_names, secrets_lost = [], True
    context = {
        "section": "servers",
        **_inspection_context(server, request.GET.get("evals_page")),
        "can_edit": can_edit(request.user, server),
        "secret_names": secret_names,
        "secrets_lost": secrets_lost,
        "scenarios": server.scenarios.order_by("name"),
        "run_count": server.runs.count(),
        "tls_warning": http_settings.INSECURE_WARNING if server.tls_insecure_skip_verify else "",
    }
    template = "evalhub/server_detail.html"
    if request.htmx:
        template += "#inspection"
    elif context["run_count"]:
        # Per tool across its runs (runs.tool_usage): read for the full page only, not the inspection's polling.
        context["tool_usage"] = server_tool_usage(server)
    return render(request, template, context)


@require_POST
def server_inspect(request: HtmxHttpRequest, server_id: int) -> HttpResponse:
    """Inspect in the background and wait a few seconds for it: the inspection panel for htmx (which keeps
    polling while the inspection goes on), the detail page otherwise."""
    server = get_object_or_404(McpServer, pk=server_id)
    busy = ""
    level = messages.error
    try:
        inspection = services.server_inspect_in_background(
            server=server, wait=settings.EVALHUB_WEB_WAIT_SECONDS, user=request.user
        )
    except (McpConnectionError, SecretUnavailable) as exc:
        summary = f"Inspecting “{server.name}” failed: {getattr(exc, 'message', str(exc))}"
    except background.Busy as exc:
        summary = busy = str(exc)
    else:
        if inspection is None:
            level = messages.info
            summary = f"Still inspecting “{server.name}”: the Inspection panel shows the result when it is done."
        else:
            level = messages.success
            count = len(inspection.tools)
            summary = (
                f"Inspected “{server.name}” in {inspection.duration_ms} ms: {count} tool{'s' if count != 1 else ''}."
            )
    if request.htmx:
        server.refresh_from_db()
        context = {**_inspection_context(server), "busy": busy}
        return render(request, "evalhub/server_detail.html#inspection", context)
    level(request, summary)
    return redirect("server_detail", server_id=server.pk)


@require_GET
def server_snapshot(request: HttpRequest, server_id: int, tools_hash: str) -> HttpResponse:
    server = get_object_or_404(McpServer, pk=server_id)
    snapshot = server.snapshots.filter(tools_hash=tools_hash).first()
    if snapshot is None:
        # Runs link here by hash; the snapshot goes when its server is deleted or re-registered.
        return render(
            request,
            "evalhub/server_snapshot.html",
            {"section": "servers", "server": server, "snapshot": None, "tools_hash": tools_hash},
            status=404,
        )
    previous = snapshot.previous()
    context = {
        "section": "servers",
        "server": server,
        "snapshot": snapshot,
        "tools_hash": tools_hash,
        "previous": previous,
        "changes": diff_tools(previous.tools, snapshot.tools) if previous else None,
        "tools": tool_rows(snapshot.tools, quality_report(snapshot.tools)),
        "is_latest": snapshot == server.latest_snapshot(),
    }
    return render(request, "evalhub/server_snapshot.html", context)
