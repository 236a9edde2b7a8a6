"""Export and Import on the Scenarios page. Import shows the plan (and, for mcptest suites, the report of what did
not carry over) before anything changes; Apply on that page applies the very text that was planned."""

from __future__ import annotations

import re

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from evalhub.providers.views import staff_required
from evalhub.suites.api import MAX_SUITE_BYTES, schema_url
from evalhub.suites.plan import Plan
from evalhub.suites.sections.scenarios import TAG_PATTERN
from evalhub.suites.services import mcptest_import, suite_apply, suite_export
from evalhub.suites.validation import InvalidSuite, Problem

FORMATS = {"evalhub": "EvalHub suite", "mcptest": "mcptest v1 suite"}


@require_GET
def suite_export_view(request: HttpRequest) -> HttpResponse:
    tag = request.GET.get("tag", "")
    if tag and not re.fullmatch(TAG_PATTERN, tag):
        return HttpResponseBadRequest("A tag is letters, digits, - and _ only.")
    response = HttpResponse(
        suite_export(schema_url=schema_url(request), tag=tag), content_type="application/yaml; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{"evals-" + tag if tag else "evals"}.yaml"'
    return response


@require_http_methods(["GET", "POST"])
@staff_required
def suite_import_view(request: HttpRequest) -> HttpResponse:
    context: dict[str, object] = {"section": "scenarios", "formats": FORMATS, "format": "evalhub", "text": ""}
    if request.method == "GET":
        return render(request, "evalhub/suite_import.html", context)
    text, problem = _text(request)
    kind = request.POST.get("format") if request.POST.get("format") in FORMATS else "evalhub"
    prune = kind == "evalhub" and request.POST.get("prune") == "1"
    upload = request.FILES.get("file")
    filename = str(request.POST.get("filename") or (upload.name if upload is not None else "") or "evals.yaml")
    confirmed = request.POST.get("confirm") == "1"
    context |= {"text": text, "format": kind, "prune": prune, "filename": filename}
    if problem:
        context["problems"] = [Problem(filename, 0, "", problem)]
        return render(request, "evalhub/suite_import.html", context, status=400)
    plan: Plan
    try:
        if kind == "mcptest":
            plan, conversion = mcptest_import(
                text=text,
                filename=filename,
                user=request.user,
                dry_run=not confirmed,
                provider="EvalHub offline",
                model="evalhub-offline",
                schema_url=schema_url(request),
            )
            context["report"], context["counts"] = conversion.notes, conversion.counts
        else:
            plan = suite_apply(text=text, filename=filename, user=request.user, prune=prune, dry_run=not confirmed)
    except InvalidSuite as error:
        context["problems"] = error.problems
        return render(request, "evalhub/suite_import.html", context, status=400)
    if confirmed:
        messages.success(request, f"Applied {filename}. {plan.summary()}")
        return redirect("scenario_list")
    context["plan"] = plan
    return render(request, "evalhub/suite_import.html", context)


def _text(request: HttpRequest) -> tuple[str, str]:
    """The file's text, from the upload or the text box; or why there is none."""
    upload = request.FILES.get("file")
    if upload is not None:
        if upload.size is not None and upload.size > MAX_SUITE_BYTES:
            return "", f"The file is larger than {MAX_SUITE_BYTES // 1_000_000} MB."
        try:
            return upload.read().decode("utf-8"), ""
        except UnicodeDecodeError:
            return "", "The file is not UTF-8 text."
    text = request.POST.get("text", "")
    if not text.strip():
        return "", "Choose a file or paste its text."
    return text, ""
