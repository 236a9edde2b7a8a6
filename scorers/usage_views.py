"""A scorer's page around its editor: the scenarios that use it (attach, detach), its calibration against people's
reviews, and its versions (view, compare with the current one, restore)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from evalhub.ids import parse_id
from evalhub.permissions import can_change, require_change
from evalhub.scenarios.models import Scenario
from scorers import services
from scorers.calibration.services import scorer_calibration
from scorers.models import Scorer, ScorerVersion
from scorers.version_diff import diff_lines, scorer_text


def usage_context(request: HttpRequest, scorer: Scorer) -> dict[str, object]:
    """The editor's side panels: who uses the scorer, what else the user could attach it to, its versions."""
    used_by = list(scorer.scenarios.order_by("name"))
    others = Scenario.objects.exclude(pk__in=[s.pk for s in used_by]).select_related("created_by").order_by("name")
    return {
        "used_by": [(scenario, can_change(request.user, scenario)) for scenario in used_by],
        "attachable": [scenario for scenario in others if can_change(request.user, scenario)],
        "versions": scorer.versions.select_related("created_by")[:20],
        "calibration": scorer_calibration(scorer=scorer),
        "min_reviews": settings.EVALHUB_CALIBRATION_MIN_REVIEWS,
        "min_kappa": settings.EVALHUB_CALIBRATION_MIN_KAPPA,
    }


@require_POST
def scorer_attach(request: HttpRequest, scorer_id: int) -> HttpResponse:
    scorer = get_object_or_404(Scorer, pk=scorer_id)
    scenario_id = parse_id(request.POST.get("scenario_id", ""))
    scenario = Scenario.objects.filter(pk=scenario_id).first() if scenario_id is not None else None
    if scenario is None:
        messages.error(request, "Choose a scenario to attach the scorer to (it may have been deleted).")
        return redirect("scorers:edit", scorer_id=scorer.pk)
    require_change(request.user, scenario)  # its scorers are part of the scenario
    scenario.scorers.add(scorer)
    messages.success(request, f"“{scenario.name}” now scores its runs with “{scorer.name}” too.")
    return redirect("scorers:edit", scorer_id=scorer.pk)


@require_POST
def scorer_detach(request: HttpRequest, scorer_id: int, scenario_id: int) -> HttpResponse:
    scorer = get_object_or_404(Scorer, pk=scorer_id)
    scenario = get_object_or_404(Scenario, pk=scenario_id)
    require_change(request.user, scenario)
    scenario.scorers.remove(scorer)
    fallback = "" if scenario.scorers.exists() else " It has no scorer left, so the default scorer scores its runs."
    messages.success(request, f"Detached “{scorer.name}” from “{scenario.name}”.{fallback}")
    return redirect("scorers:edit", scorer_id=scorer.pk)


def _text(version: ScorerVersion | Scorer) -> str:
    return scorer_text(
        kind=version.kind,
        code=version.code,
        system_prompt=version.system_prompt,
        labels=version.labels,
        judge_model=version.judge_model,
    )


@require_GET
def scorer_version(request: HttpRequest, scorer_id: int, version: int) -> HttpResponse:
    scorer = get_object_or_404(Scorer, pk=scorer_id)
    shown = get_object_or_404(ScorerVersion, scorer=scorer, version=version)
    context = {
        "section": "scorers",
        "scorer": scorer,
        "shown": shown,
        "is_current": shown.version == scorer.version,
        "diff": diff_lines(_text(shown), _text(scorer)),
        "versions": scorer.versions.select_related("created_by")[:20],
    }
    return render(request, "scorers/scorer_version.html", context)


@require_POST
def scorer_restore(request: HttpRequest, scorer_id: int, version: int) -> HttpResponse:
    scorer = get_object_or_404(Scorer, pk=scorer_id)
    require_change(request.user, scorer)
    old = get_object_or_404(ScorerVersion, scorer=scorer, version=version)
    before = scorer.version
    scorer = services.scorer_restore(scorer=scorer, version=old, user=request.user)
    if scorer.version == before:
        messages.info(request, f"Version {version} is what “{scorer.name}” already is: nothing changed.")
    else:
        messages.success(
            request, f"Restored version {version} of “{scorer.name}” as version {scorer.version}; v{before} is kept."
        )
    return redirect("scorers:edit", scorer_id=scorer.pk)
