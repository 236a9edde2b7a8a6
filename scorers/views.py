from __future__ import annotations

from django.contrib import messages
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from evalhub.htmx import HtmxHttpRequest
from evalhub.ids import parse_id
from evalhub.permissions import require_change
from evalhub.servers.models import McpServer
from runs.models import Run
from runs.scoring import run_record
from scorers import services
from scorers.calibration.draft import draft_test, reviewed_runs
from scorers.calibration.services import scorer_summaries
from scorers.calibration.wand import generate_from_reviews, reviewed
from scorers.forms import ScorerForm
from scorers.models import Scorer
from scorers.usage_views import usage_context


@require_GET
def scorer_list(request: HttpRequest) -> HttpResponse:
    scorers = list(Scorer.objects.annotate(scenario_count=Count("scenarios")))
    calibrations = scorer_summaries(scorers=scorers)
    rows = [(scorer, calibrations[scorer.pk]) for scorer in scorers]
    return render(request, "scorers/scorer_list.html", {"section": "scorers", "scorers": scorers, "rows": rows})


def _editor(request: HttpRequest, form: ScorerForm, scorer: Scorer | None) -> HttpResponse:
    context = {
        "section": "scorers",
        "form": form,
        "scorer": scorer,
        "recent_runs": Run.objects.filter(status=Run.Status.DONE).select_related("scenario")[:50],
        # Each server's reviewed runs, beside its name: what the wand learns from when its tools are chosen.
        "servers": McpServer.objects.filter(snapshots__isnull=False)
        .annotate(reviewed=Count("runs", filter=Q(runs__in=reviewed(server=None)), distinct=True))
        .distinct(),
        "reviewed_available": reviewed(server=None).count(),
        **(usage_context(request, scorer) if scorer else {}),
    }
    return render(request, "scorers/scorer_form.html", context)


@require_http_methods(["GET", "POST"])
def scorer_create(request: HttpRequest) -> HttpResponse:
    form = ScorerForm(request.POST or None, initial={"labels": "GOOD|1\nBAD|0"})
    if request.method == "POST" and form.is_valid():
        scorer = services.scorer_save(scorer=form.save(commit=False), user=request.user)
        messages.success(request, f"Created scorer “{scorer.name}”. Attach it to scenarios under “Used by”.")
        return redirect("scorers:edit", scorer_id=scorer.pk)
    return _editor(request, form, None)


@require_http_methods(["GET", "POST"])
def scorer_edit(request: HttpRequest, scorer_id: int) -> HttpResponse:
    scorer = get_object_or_404(Scorer, pk=scorer_id)
    if request.method == "POST":
        require_change(request.user, scorer)  # Reading it (and testing it) is everyone's: this page is its only view.
    version = scorer.version
    form = ScorerForm(request.POST or None, instance=scorer)
    if request.method == "POST" and form.is_valid():
        scorer = services.scorer_save(scorer=form.save(commit=False), user=request.user)
        if scorer.version != version:
            messages.success(request, f"Saved “{scorer.name}” as version {scorer.version}; older runs keep v{version}.")
        else:
            messages.success(request, f"Saved “{scorer.name}”.")
        return redirect("scorers:edit", scorer_id=scorer.pk)
    return _editor(request, form, scorer)


@require_POST
def scorer_duplicate(request: HttpRequest, scorer_id: int) -> HttpResponse:
    copy = services.scorer_duplicate(scorer=get_object_or_404(Scorer, pk=scorer_id), user=request.user)
    messages.success(request, f"Duplicated as “{copy.name}”.")
    return redirect("scorers:edit", scorer_id=copy.pk)


@require_http_methods(["GET", "POST"])
def scorer_delete(request: HttpRequest, scorer_id: int) -> HttpResponse:
    scorer = get_object_or_404(Scorer, pk=scorer_id)
    require_change(request.user, scorer)
    if request.method == "POST":
        scorer.delete()
        messages.success(request, f"Deleted scorer “{scorer.name}”. Past results keep its name and score.")
        return redirect("scorers:list")
    context = {"section": "scorers", "scorer": scorer, "scenarios": scorer.scenarios.all()}
    return render(request, "scorers/scorer_confirm_delete.html", context)


@require_POST
def scorer_test(request: HtmxHttpRequest, scorer_id: int | None = None) -> HttpResponse:
    """Run the editor's unsaved scorer on a past run, with the same sandbox and limits as the worker.

    On a saved scorer's page the form is bound to that scorer, so its own name is not "already taken"."""
    scorer = get_object_or_404(Scorer, pk=scorer_id) if scorer_id is not None else None
    form = ScorerForm(request.POST, instance=scorer)
    run = Run.objects.filter(pk=_id(request.POST.get("run_id"))).select_related("scenario").first()
    context: dict[str, object] = {"run": run}
    # Testing needs only what runs: a missing or taken name matters when saving, not before.
    if not form.is_valid():
        form.errors.pop("name", None)
    # The code's own errors first: a syntax error is worth knowing before there is any run to test on.
    if form.errors:
        context["problem"] = "Fix the errors in the form first: " + "; ".join(
            f"{name}: {' '.join(str(error) for error in errors)}" for name, errors in form.errors.items()
        )
    elif run is None:
        context["problem"] = "Choose a finished run to test on."
    else:
        context["evaluation"] = services.scorer_evaluate(content=form.save(commit=False), record=run_record(run))
    return render(request, "scorers/scorer_form.html#test-result", context)


@require_POST
def scorer_test_reviewed(request: HtmxHttpRequest, scorer_id: int | None = None) -> HttpResponse:
    """Run the editor's unsaved scorer on the latest reviewed runs and show its agreement with people (κ)."""
    scorer = get_object_or_404(Scorer, pk=scorer_id) if scorer_id is not None else None
    form = ScorerForm(request.POST, instance=scorer)
    context: dict[str, object] = {}
    if not form.is_valid():
        form.errors.pop("name", None)
    runs = reviewed_runs(scorer=scorer)
    if form.errors:
        context["review_problem"] = "Fix the errors in the form first: " + "; ".join(
            f"{name}: {' '.join(str(error) for error in errors)}" for name, errors in form.errors.items()
        )
    elif not runs:
        context["review_problem"] = (
            "No reviewed run to test on yet: review runs (pass or fail) on their pages or in the Review queue first."
        )
    else:
        context["draft"] = draft_test(content=form.save(commit=False), runs=runs)
        context["draft_runs"] = len(runs)
    return render(request, "scorers/scorer_form.html#review-test-result", context)


@require_POST
def scorer_generate(request: HtmxHttpRequest) -> HttpResponse:
    """Write scorer code from a description; the page puts it into the editor (with undo), saved only with the
    form. The description is posted as `criteria`: the panel sits inside the scorer's form, which has its own
    `description` field."""
    description = request.POST.get("criteria", "").strip()
    server = McpServer.objects.filter(pk=_id(request.POST.get("server_id"))).first()
    snapshot = server.latest_snapshot() if server else None
    context: dict[str, object] = {}
    tools = snapshot.tools if snapshot else []
    if not description:
        context["problem"] = "Describe what a good run looks like, e.g. which tool should be called and with what."
    elif request.POST.get("learn_from_reviews"):
        learned = generate_from_reviews(description=description, tools=tools, server=server)
        context.update(generated=learned.generated, learned=learned)
    else:
        context["generated"] = services.scorer_generate(description=description, tools=tools)
    return render(request, "scorers/scorer_form.html#generate-result", context)


def _id(value: str | None) -> int:
    """A posted id, or 0 (which matches nothing) when it is missing or not a number."""
    return parse_id(value or "") or 0
