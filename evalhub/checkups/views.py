"""The check-up's pages: the *Check up* button on a server's page, the check-up's page (live while it runs: htmx
re-reads its status panel every 2 s), its report downloads, and the comparison of two check-ups."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from evalhub.checkups import report
from evalhub.checkups.models import Checkup
from evalhub.checkups.services import checkup_compare, checkup_settle, checkup_start
from evalhub.htmx import HtmxHttpRequest
from evalhub.servers.models import McpServer
from runs.quota import QuotaExceeded


@require_POST
def server_checkup(request: HttpRequest, server_id: int) -> HttpResponse:
    server = get_object_or_404(McpServer, pk=server_id)
    try:
        checkup = checkup_start(
            server=server, user=request.user, acknowledge_side_effects=request.POST.get("acknowledge") == "1"
        )
    except (QuotaExceeded, PermissionDenied) as exc:
        messages.error(request, str(exc))
        return redirect("server_detail", server_id=server.pk)
    return redirect("checkup_detail", checkup_id=checkup.pk)


@require_GET
def checkup_detail(request: HtmxHttpRequest, checkup_id: int) -> HttpResponse:
    checkup = checkup_settle(checkup=get_object_or_404(Checkup.objects.select_related("server"), pk=checkup_id))
    data = checkup.to_dict()
    earlier = checkup.server.checkups.filter(status=Checkup.Status.FINISHED, pk__lt=checkup.pk).first()
    context = {
        "section": "servers",
        "checkup": checkup,
        "c": data,
        "sections": report.sections(data) if checkup.is_done else [],
        "earlier": earlier,
        "formats": report.FORMATS,
    }
    template = "checkups/checkup_detail.html"
    if request.htmx:
        template += "#checkup-status"
    return render(request, template, context)


@require_GET
def checkup_report(request: HttpRequest, checkup_id: int, fmt: str) -> HttpResponse:
    checkup = get_object_or_404(Checkup.objects.select_related("server"), pk=checkup_id)
    if fmt not in report.FORMATS:
        raise Http404(f"No report format {fmt!r}.")
    return report.render(checkup.to_dict(), fmt).response(f"checkup-{checkup.pk}")


@require_GET
def checkup_compare_view(request: HttpRequest, checkup_id: int, other_id: int) -> HttpResponse:
    after = get_object_or_404(Checkup.objects.select_related("server"), pk=checkup_id)
    before = get_object_or_404(Checkup, pk=other_id)
    try:
        comparison = checkup_compare(before=before, after=after)
    except ValueError as exc:
        raise Http404(str(exc)) from None
    context = {"section": "servers", "after": after, "before": before, "cmp": comparison}
    return render(request, "checkups/checkup_compare.html", context)
