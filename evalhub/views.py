from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_not_required
from django.contrib.auth.views import LoginView
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_GET

from evalhub.demo import DEMO_USERNAME
from evalhub.health import health_report


class EvalHubLoginView(LoginView):
    """The login page; on an install `make run` seeded, it says where the demo password is and how to reset it."""

    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        context = super().get_context_data(**kwargs)
        context["demo_login"] = get_user_model().objects.filter(username=DEMO_USERNAME).exists()
        return context


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return redirect("scenario_list")


@login_not_required
@require_GET
def health(request: HttpRequest) -> JsonResponse:
    report = health_report()
    return JsonResponse(report, status=200 if report["status"] == "ok" else 503)
