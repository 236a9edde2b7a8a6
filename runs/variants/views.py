"""The variant editor's helpers (the surface to start from, the diff of an edit), the page of an experiment's
variants (each against the server as it is, with what it changed), and suggesting a variant from a cell's failed
trials, then running it in one click."""

from __future__ import annotations

import json

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from evalhub.ids import parse_id
from evalhub.servers.models import McpServer
from runs.experiments.forms import editor_text, server_tools
from runs.experiments.models import Experiment, ExperimentCell
from runs.experiments.services import ExperimentInvalid
from runs.quota import QuotaExceeded
from runs.tool_usage.services import experiment_tool_usage
from runs.variants.compare import variant_comparisons
from runs.variants.services import failed_trials, variant_run, variant_suggest
from runs.variants.suggest import trial_text
from runs.variants.surface import VariantInvalid, apply_variant, parse_variant, surface_text, variant_from_text
from scorers.version_diff import DiffLine, diff_lines


def variant_diff_lines(variant_record: dict[str, object] | None, tools: list[dict[str, object]]) -> list[DiffLine]:
    """What the model is offered as served against under the variant, line by line, for the tools it changes."""
    variant = parse_variant(variant_record) if variant_record else None
    named = [tool for tool in tools if variant is None or tool["name"] in variant.named_tools]
    return _collapsed(diff_lines(surface_text(named), surface_text(apply_variant(variant, named).tools)))


def _collapsed(lines: list[DiffLine], context: int = 2) -> list[DiffLine]:
    """Unchanged lines more than `context` away from a change become one "… N unchanged lines": a rewritten
    description should not be read under its tool's whole unchanged input schema."""
    changed = [i for i, line in enumerate(lines) if line.kind != "same"]
    near = {j for i in changed for j in range(i - context, i + context + 1)}
    kept: list[DiffLine] = []
    skipped = 0
    for index, line in enumerate(lines):
        # A tool's name (its block's only unindented line) always stays: it says what the change is about.
        if line.kind == "same" and index not in near and line.text.startswith(" "):
            skipped += 1
            continue
        if skipped:
            kept.append(DiffLine("skipped", f"… {skipped} unchanged line{'s' if skipped != 1 else ''}", None, None))
            skipped = 0
        kept.append(line)
    if skipped:
        kept.append(DiffLine("skipped", f"… {skipped} unchanged line{'s' if skipped != 1 else ''}", None, None))
    return kept


@require_GET
def variant_surface(request: HttpRequest) -> HttpResponse:
    """The editor, filled with the chosen server's surface (the form swaps it in when the server changes)."""
    server = get_object_or_404(McpServer, pk=parse_id(request.GET.get("variant_server", "")) or 0)
    return render(request, "variants/_variant_editor.html", {"text": editor_text(server)})


@require_POST
def variant_diff(request: HttpRequest) -> HttpResponse:
    """The diff of the editor's variant against the server as it is, or what is wrong with it."""
    server = McpServer.objects.filter(pk=parse_id(request.POST.get("variant_server", "")) or 0).first()
    context: dict[str, object] = {}
    if server is None:
        context["error"] = "Choose the server whose tool surface the variant changes."
    else:
        tools = server_tools(server)
        try:
            variant = variant_from_text(request.POST.get("variant", ""), tools)
        except VariantInvalid as exc:
            context["error"] = str(exc)
        else:
            context["variant"] = variant
            context["diff"] = variant_diff_lines(variant.record() if variant else None, tools)
    return render(request, "variants/_variant_diff.html", context)


@require_GET
def experiment_variants(request: HttpRequest, experiment_id: int) -> HttpResponse:
    """Each variant against the server as it is (regressed / fixed with Fisher's p, the first divergence of a
    regressed cell, the diff of what the model was offered), then which tool was confused in each column and the
    per-tool figures of all its trials (runs.tool_usage)."""
    experiment = get_object_or_404(Experiment, pk=experiment_id)
    cells = list(experiment.cells.all())
    first = next((cell.scenario for cell in cells if cell.scenario is not None), None)
    tools = server_tools(first.server) if first is not None else []
    sections = []
    for index, compared in enumerate(variant_comparisons(experiment, cells)):
        rows = compared.comparison.html_rows()
        record = experiment.variant_list[index]
        sections.append(
            {
                "name": compared.variant,
                "comparison": compared.comparison,
                "rows": rows,
                "diff": variant_diff_lines(record, tools),
            }
        )
    confusions, usage = experiment_tool_usage(experiment)
    context = {
        "section": "experiments",
        "experiment": experiment,
        "sections": sections,
        "confusions": confusions,
        "usage": usage,
        # Cells a rewritten description might help: a suggestion learns from their failed trials.
        "failing": [cell for cell in cells if cell.counted > cell.passes and cell.scenario_id is not None],
    }
    return render(request, "variants/experiment_variants.html", context)


@require_http_methods(["GET", "POST"])
def cell_suggest(request: HttpRequest, cell_id: int) -> HttpResponse:
    """A cell's failed trials; on POST, the generation model's suggestion: its diff, and the variant in an editor
    to change and run."""
    cell = get_object_or_404(ExperimentCell.objects.select_related("experiment", "scenario__server"), pk=cell_id)
    trials = failed_trials(cell)
    context: dict[str, object] = {
        "section": "experiments",
        "cell": cell,
        "trials": [(trial.run_id, trial_text(trial)) for trial in trials],
    }
    if request.method == "POST":
        try:
            suggestion = variant_suggest(cell=cell, trials=trials)
        except ExperimentInvalid as exc:
            context["error"] = str(exc)
        else:
            context["suggestion"] = suggestion
            if suggestion.variant is not None and cell.scenario is not None:
                record = suggestion.variant.record()
                context["diff"] = variant_diff_lines(record, server_tools(cell.scenario.server))
                context["text"] = json.dumps(record, indent=2, ensure_ascii=False)
    return render(request, "variants/cell_suggest.html", context)


@require_POST
def cell_run_variant(request: HttpRequest, cell_id: int) -> HttpResponse:
    """Run the (edited) suggestion as a variant of the cell, beside the server as it is."""
    cell = get_object_or_404(ExperimentCell.objects.select_related("experiment", "scenario__server"), pk=cell_id)
    text = request.POST.get("variant", "")
    try:
        if cell.scenario is None:
            raise ExperimentInvalid("This cell's scenario was deleted: it cannot run again.", field="cell")
        variant = variant_from_text(text, server_tools(cell.scenario.server))
        if variant is None:
            raise ExperimentInvalid("The variant changes nothing: edit a description first.", field="variant")
        experiment = variant_run(cell=cell, variant=variant, user=request.user)
    except (VariantInvalid, ExperimentInvalid, QuotaExceeded) as exc:
        context = {"section": "experiments", "cell": cell, "error": str(exc), "text": text, "trials": []}
        return render(request, "variants/cell_suggest.html", context, status=400)
    messages.success(request, f"Queued {experiment.total_runs} runs: the variant beside the server as it is.")
    return redirect("experiments:variants", experiment_id=experiment.pk)
