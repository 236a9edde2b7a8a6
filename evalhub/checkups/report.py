"""A check-up as a report: JSON (the API's answer), Markdown and HTML for people, JUnit XML for CI (one test suite
per section, one test case per finding; an error finding is a failure). Reuses runs.reports.Report for the
download and the HTML page's sandbox. Pure: it reads `Checkup.to_dict()`."""

from __future__ import annotations

import json
from typing import Any, Literal
from xml.etree import ElementTree as ET

from django.template.loader import render_to_string

from evalhub.checkups.findings import SECTION_TITLES, SECTIONS
from runs.reports import Report

CheckupFormat = Literal["json", "markdown", "junit", "html"]
FORMATS: tuple[CheckupFormat, ...] = ("json", "markdown", "junit", "html")


def render(data: dict[str, Any], fmt: str) -> Report:
    if fmt == "json":
        return Report(json.dumps(data, indent=2, ensure_ascii=False), "application/json", "json")
    if fmt == "markdown":
        return Report(to_markdown(data), "text/markdown; charset=utf-8", "md")
    if fmt == "junit":
        return Report(to_junit(data), "application/xml", "xml")
    if fmt == "html":
        html = render_to_string("checkups/report.html", {"c": data, "sections": sections(data)})
        return Report(html, "text/html; charset=utf-8", "html")
    raise ValueError(f"Unknown report format {fmt!r}; use one of {', '.join(FORMATS)}.")


def sections(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The sections that ran, each with its score and its findings, in order."""
    return [
        {
            "key": key,
            "title": SECTION_TITLES[key],
            **data["sections"][key],
            "findings": [f for f in data["findings"] if f["section"] == key],
        }
        for key in SECTIONS
        if key in data["sections"]
    ]


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(data: dict[str, Any]) -> str:
    lines = [
        f"# Check-up of {data['server_name']}: {data['verdict']} (score {_score(data['score'])})",
        "",
    ]
    counts = data.get("counts") or {}
    if counts:
        lines += [
            f"{counts.get('error', 0)} errors, {counts.get('warning', 0)} warnings, {counts.get('info', 0)} info.",
            "",
        ]
    if data.get("duration_ms") is not None:
        lines += [f"Took {data['duration_ms'] / 1000:.1f} s.", ""]
    for section in sections(data):
        lines += [f"## {section['title']}: {_score(section['score'])}", ""]
        if not section["findings"]:
            lines += ["No findings.", ""]
            continue
        lines += ["| Severity | Where | Finding | Evidence | Recommendation |", "|---|---|---|---|---|"]
        for f in section["findings"]:
            where = f"{f['subject']}" + (f" · {f['field']}" if f["field"] else "")
            lines.append(
                f"| {f['severity']} | {_cell(where)} | {_cell(f['message'])} | {_cell(f['evidence'])} | "
                f"{_cell(f['recommendation'])} |"
            )
        lines.append("")
    if data.get("run_ids"):
        lines += ["Runs of the shipped evals: " + ", ".join(f"#{run_id}" for run_id in data["run_ids"]), ""]
    return "\n".join(lines)


def to_junit(data: dict[str, Any]) -> str:
    root = ET.Element("testsuites", name=f"Check-up of {data['server_name']}")
    for section in sections(data):
        findings = section["findings"]
        failures = sum(f["severity"] == "error" for f in findings)
        suite = ET.SubElement(
            root, "testsuite", name=section["title"], tests=str(max(len(findings), 1)), failures=str(failures)
        )
        if not findings:
            ET.SubElement(suite, "testcase", classname=section["key"], name="no findings")
        for f in findings:
            case = ET.SubElement(suite, "testcase", classname=section["key"], name=f"{f['code']}: {f['subject']}")
            text = f"{f['message']}\nEvidence: {f['evidence']}\nRecommendation: {f['recommendation']}"
            if f["severity"] == "error":
                ET.SubElement(case, "failure", type=f["code"], message=f["message"]).text = text
            else:
                ET.SubElement(case, "system-out").text = f"{f['severity']}: {text}"
    return ET.tostring(root, encoding="unicode", xml_declaration=True)
