"""The run page's Update snapshot button."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.http import require_POST

from evalhub.permissions import require_change
from runs.models import Run
from runs.snapshots.services import snapshots_update


@require_POST
@login_required
def run_update_snapshots(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(Run.objects.select_related("scenario"), pk=run_id)
    # The snapshots are the scenario's golden values: whoever may change the scenario decides them.
    require_change(request.user, run.scenario)
    keys = snapshots_update(run=run, by=request.user)  # type: ignore[arg-type]
    if keys:
        names = ", ".join(f"“{key}”" for key in keys)
        messages.success(
            request,
            f"Stored this run's values as snapshot{'s' if len(keys) > 1 else ''} {names}: later runs compare with "
            "them. This run keeps its verdict.",
        )
    else:
        messages.info(request, "This run has no failed snapshot check to store.")
    return redirect("runs:detail", run_id=run.pk)
