"""Downloads from the Runs pages: a run's report, and the Runs list (with its filters) as CSV or a report."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET

from runs.filters import RunFilters
from runs.models import Run
from runs.reports import FORMATS, ReportFormat, render_report
from runs.reports.records import record_queryset, run_record, run_summary, summary_queryset

# The list's downloads stop here; the API's /runs/report takes a `limit` for more.
MAX_EXPORT_RUNS = 5000


def _format(value: str) -> ReportFormat:
    if value not in FORMATS:
        raise Http404(f"Unknown report format; use one of {', '.join(FORMATS)}.")
    return value  # type: ignore[return-value]


def _download(records: list[dict[str, object]], fmt: ReportFormat, *, title: str, stem: str) -> HttpResponse:
    return render_report(records, fmt, title=title).response(stem)


@require_GET
def run_report(request: HttpRequest, run_id: int, fmt: str) -> HttpResponse:
    report_format = _format(fmt)
    run = get_object_or_404(record_queryset(Run.objects.all()), pk=run_id)
    record = run_summary(run) if report_format == "csv" else run_record(run)
    return _download(
        [record], report_format, title=f"EvalHub run #{run.pk}: {run.scenario.name}", stem=f"evalhub-run-{run.pk}"
    )


@require_GET
def runs_export(request: HttpRequest, fmt: str) -> HttpResponse:
    """The Runs list as it is filtered on the page (same query string), newest first."""
    report_format = _format(fmt)
    runs = RunFilters.from_query(request.GET).apply(Run.objects.all()).order_by("-created_at", "-id")[:MAX_EXPORT_RUNS]
    if report_format == "csv":
        records = [run_summary(run) for run in summary_queryset(runs)]
    else:
        records = [run_record(run) for run in record_queryset(runs)]
    return _download(records, report_format, title="EvalHub runs report", stem="evalhub-runs")
