from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET

from evalhub.health import health_report


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return redirect("scenario_list")


@login_not_required
@require_GET
def health(request: HttpRequest) -> JsonResponse:
    report = health_report()
    return JsonResponse(report, status=200 if report["status"] == "ok" else 503)
