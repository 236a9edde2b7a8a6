from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET


@require_GET
def scorer_list(request: HttpRequest) -> HttpResponse:
    return render(request, "scorers/scorer_list.html", {"section": "scorers"})
