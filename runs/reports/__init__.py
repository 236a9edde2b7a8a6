"""Reports of runs: records (the data) and formats (Markdown, HTML, JUnit, JSON, CSV, EvalResult) rendered from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from django.http import HttpResponse

from runs.reports.evalresult import to_evalresult
from runs.reports.formats import to_csv, to_html, to_json, to_junit, to_markdown
from runs.reports.records import run_passes, run_record, run_summary, runs_overview

ReportFormat = Literal["json", "markdown", "junit", "html", "csv", "evalresult"]
FORMATS: tuple[ReportFormat, ...] = ("json", "markdown", "junit", "html", "csv", "evalresult")

__all__ = [
    "FORMATS",
    "Report",
    "ReportFormat",
    "render_report",
    "run_passes",
    "run_record",
    "run_summary",
    "runs_overview",
]


@dataclass(frozen=True)
class Report:
    content: str
    content_type: str
    extension: str

    def response(self, stem: str) -> HttpResponse:
        """The report as a download named `stem`; an HTML one opens in the browser instead, as a page to read.

        Opened inline it is on EvalHub's origin, so it is sandboxed: no script of any kind, only its own styles.
        """
        response = HttpResponse(self.content, content_type=self.content_type)
        disposition = "inline" if self.extension == "html" else "attachment"
        response["Content-Disposition"] = f'{disposition}; filename="{stem}.{self.extension}"'
        if self.extension == "html":
            response["Content-Security-Policy"] = "sandbox; default-src 'none'; style-src 'unsafe-inline'"
        return response


def render_report(
    records: list[dict[str, Any]], fmt: ReportFormat, *, title: str, min_score: float | None = None
) -> Report:
    if fmt == "json":
        return Report(to_json(records, min_score=min_score), "application/json", "json")
    if fmt == "markdown":
        return Report(to_markdown(records, title=title, min_score=min_score), "text/markdown; charset=utf-8", "md")
    if fmt == "junit":
        return Report(to_junit(records, title=title, min_score=min_score), "application/xml", "xml")
    if fmt == "html":
        return Report(to_html(records, title=title, min_score=min_score), "text/html; charset=utf-8", "html")
    if fmt == "csv":
        return Report(to_csv(records), "text/csv; charset=utf-8", "csv")
    if fmt == "evalresult":
        return Report(to_evalresult(records), "application/json", "evalresult.json")
    raise ValueError(f"Unknown report format {fmt!r}; use one of {', '.join(FORMATS)}.")
