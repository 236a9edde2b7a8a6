"""An experiment's report (JSON, Markdown, HTML, JUnit, CSV) and its CI gate, from records alone.

Records are the API's shapes (matrix.experiment_record, compare.Comparison.record), so the CLI renders the same
reports and applies the same gate to an experiment it fetched from a remote EvalHub.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any, Literal
from xml.etree import ElementTree as ET

from django.template.loader import render_to_string
from django.utils import timezone

from runs.experiments.advisory import advisory_text
from runs.experiments.matrix import tally_text
from runs.experiments.stats import TrialCounts
from runs.reports import Report
from runs.reports.formats import md_escape as md
from runs.reports.formats import score_text, seconds, spreadsheet_safe, usd

# "evalresult" is rendered from the experiment's runs, not its matrix (runs/reports/evalresult.py).
ExperimentFormat = Literal["json", "markdown", "html", "junit", "csv", "evalresult"]
EXPERIMENT_FORMATS: tuple[ExperimentFormat, ...] = ("json", "markdown", "html", "junit", "csv", "evalresult")
CSV_COLUMNS = [
    "scenario",
    "model",
    "passes",
    "trials",
    "pass_rate",
    "pass_at_k",
    "pass_hat_k",
    "score_mean",
    "duration_p50_ms",
    "duration_p95_ms",
    "tokens_mean",
    "cost_usd",
    "flaky",
    "inconclusive",
    "failure_causes",
    "self_judging",
    "verdict",
]


@dataclass(frozen=True)
class CellResult:
    """A cell through the gate: `failures` make CI exit 1; `undecided` (too many inconclusive trials to decide)
    exit 3 when nothing failed."""

    cell: dict[str, Any]
    verdict: str | None
    failures: list[str]
    undecided: list[str]


def gate(
    experiment: dict[str, Any],
    comparison: dict[str, Any] | None,
    *,
    fail_on_regression: bool,
    min_pass_rate: float | None,
    max_inconclusive: int = 0,
) -> list[CellResult]:
    """Each cell with why it fails CI: a significant regression (with --fail-on-regression and a baseline), or a
    pass rate below `min_pass_rate`, both over decided trials; and why it cannot be decided: more than
    `max_inconclusive` inconclusive trials, none decided, or a baseline with none decided."""
    verdicts = {(r["scenario_name"], r["model"]): r for r in (comparison or {}).get("cells", [])}
    results = []
    for cell in experiment["cells"]:
        row = verdicts.get((cell["scenario_name"], cell["model"]))
        verdict = row["kind"] if row else None
        failures: list[str] = []
        if fail_on_regression and row and row["kind"] == "regressed":
            before = row["baseline"]
            failures.append(
                f"Regressed: {cell['passes']}/{cell['counted']} passed, "
                f"baseline {before['passes']}/{before['counted']} (Fisher p = {row['p_value']:.3f})."
            )
        rate = cell["pass_rate"]
        if min_pass_rate is not None and cell["counted"] and rate is not None and rate < min_pass_rate:
            failures.append(f"Pass rate {rate:.0%} is below {min_pass_rate:.0%} ({cell['passes']}/{cell['counted']}).")
        if failures and cell["failure"]:
            failures.append(f"A failing trial: {cell['failure']}")
        counts = TrialCounts(cell["passes"], cell["counted"] - cell["passes"], cell["inconclusive"])
        undecided: list[str] = []
        if counts.undecided(max_inconclusive):
            undecided.append(
                f"{counts.inconclusive} of {counts.inconclusive + counts.decided} trial(s) inconclusive "
                f"(at most {max_inconclusive} allowed): {cell['failure']}"
            )
        elif fail_on_regression and verdict == "undecided":
            undecided.append("The baseline's trials of this cell were all inconclusive: nothing to compare with.")
        results.append(CellResult(cell, verdict, failures, undecided))
    return results


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def cell_text(cell: dict[str, Any]) -> str:
    """ "2/3 flaky +1 inconclusive self-judging" — what one matrix cell says in text reports and the terminal:
    passes of the decided trials."""
    text = f"{cell['passes']}/{cell['counted']}"
    if cell["finished"] < cell["trials"]:
        text += f" (of {cell['trials']})"
    text += " flaky" if cell["flaky"] else ""
    text += f" +{cell['inconclusive']} inconclusive" if cell["inconclusive"] else ""
    return text + (" self-judging" if cell.get("self_judging") else "")


def matrix_rows(experiment: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The matrix as text: a header (Scenario, then each column: a model, with its tool mode when modes are
    compared) and one row per scenario, then the totals."""
    columns = [totals["model"] for totals in experiment["totals"]]
    by_scenario: dict[str, dict[int, str]] = {}
    for cell in experiment["cells"]:
        by_scenario.setdefault(cell["scenario_name"], {})[cell["column"]] = cell_text(cell)
    rows = [[name, *(cells.get(column, "—") for column in range(len(columns)))] for name, cells in by_scenario.items()]
    totals = [
        f"{_rate(t['pass_rate'])} [{t['pass_rate_interval'][0]:.0%} to {t['pass_rate_interval'][1]:.0%}]"
        for t in experiment["totals"]
    ]
    return ["Scenario", *columns], [*rows, ["All (95 % interval)", *totals]]


def to_markdown(experiment: dict[str, Any], comparison: dict[str, Any] | None, *, title: str) -> str:
    header, rows = matrix_rows(experiment)
    progress = experiment["progress"]
    out = [
        f"# {md(title)}",
        "",
        f"Label `{md(experiment['label'] or '—')}` · {experiment['trials']} trial(s) per cell · "
        f"{progress['finished']} / {progress['total']} runs · {experiment['status']}",
        "",
        "| " + " | ".join(md(h) for h in header) + " |",
        "| " + " | ".join("---" for _ in header) + " |",
        *("| " + " | ".join(md(c) for c in row) + " |" for row in rows),
        "",
        "pass@k: chance that at least one of k trials passes; pass^k: chance that all k pass.",
    ]
    if advisory := experiment.get("advisory_judges"):
        out += [
            "",
            f"Advisory verdicts (judges not calibrated against people's reviews, shown but not deciding): "
            f"{md(advisory_text(advisory))}.",
        ]
    if comparison:
        out += ["", f"## Compared with experiment #{comparison['baseline_id']}", "", f"**{md(comparison['summary'])}**"]
        out += [
            f"- {md(row['scenario_name'])} on `{md(row['model'])}`: {row['kind'].replace('_', ' ')}"
            for row in comparison["cells"]
            if row["kind"] in ("regressed", "fixed", "new", "removed")
        ]
    return "\n".join(out).rstrip() + "\n"


def to_junit(results: list[CellResult], *, title: str) -> str:
    """One <testcase> per cell: <failure> with the gate's reasons, <skipped> when too many of its trials were
    inconclusive to decide (never a failure: an outage is nobody's fault under test)."""
    suite = ET.Element("testsuite", name=title, tests=str(len(results)))
    for result in results:
        cell = result.cell
        case = ET.SubElement(suite, "testcase", classname=f"evalhub.{cell['model']}", name=cell["scenario_name"])
        properties = ET.SubElement(case, "properties")
        for name in ("passes", "counted", "inconclusive", "trials", "pass_rate", "pass_at_k", "pass_hat_k", "cost_usd"):
            ET.SubElement(properties, "property", name=name, value=str(cell[name]))
        if result.verdict:
            ET.SubElement(properties, "property", name="verdict", value=result.verdict)
        if result.failures:
            ET.SubElement(case, "failure", message=result.failures[0], type="cell").text = "\n".join(result.failures)
        elif result.undecided:
            ET.SubElement(case, "skipped", message=result.undecided[0]).text = "\n".join(result.undecided)
        ET.SubElement(case, "system-out").text = (
            f"{cell_text(cell)} passed · pass@{cell['k']} {score_text(cell['pass_at_k'])} · "
            f"pass^{cell['k']} {score_text(cell['pass_hat_k'])} · score {score_text(cell['score_mean'])} · "
            f"p50 {seconds(_ms(cell['duration_p50_ms']))} · cost {usd(cell['cost_usd'])}"
        )
    failures = sum(bool(r.failures) for r in results)
    skipped = sum(bool(r.undecided) and not r.failures for r in results)
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    suite.set("skipped", str(skipped))
    document = ET.Element("testsuites", name=title, tests=str(len(results)), failures=str(failures), errors="0")
    document.append(suite)
    ET.indent(document)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(document, encoding="unicode") + "\n"


def _ms(value: float | None) -> int | None:
    return None if value is None else round(value)


def to_csv(experiment: dict[str, Any], comparison: dict[str, Any] | None) -> str:
    verdicts = {(r["scenario_name"], r["model"]): r["kind"] for r in (comparison or {}).get("cells", [])}
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for c in experiment["cells"]:
        values = [
            c["scenario_name"],
            c["model"],
            c["passes"],
            c["counted"],
            c["pass_rate"],
            c["pass_at_k"],
            c["pass_hat_k"],
            c["score_mean"],
            c["duration_p50_ms"],
            c["duration_p95_ms"],
            c["tokens_mean"],
            c["cost_usd"],
            "yes" if c["flaky"] else "no",
            c["inconclusive"],
            tally_text(c["failure_causes"]),
            "yes" if c["self_judging"] else "no",
            verdicts.get((c["scenario_name"], c["model"]), ""),
        ]
        writer.writerow([spreadsheet_safe(value) for value in values])
    return buffer.getvalue()


def render_experiment_report(
    experiment: dict[str, Any], comparison: dict[str, Any] | None, fmt: ExperimentFormat, *, title: str
) -> Report:
    if fmt == "json":
        content = json.dumps({"experiment": experiment, "comparison": comparison}, indent=2, default=str)
        return Report(content, "application/json", "json")
    if fmt == "markdown":
        return Report(to_markdown(experiment, comparison, title=title), "text/markdown; charset=utf-8", "md")
    if fmt == "junit":
        results = gate(experiment, comparison, fail_on_regression=True, min_pass_rate=None)
        return Report(to_junit(results, title=title), "application/xml", "xml")
    if fmt == "csv":
        return Report(to_csv(experiment, comparison), "text/csv; charset=utf-8", "csv")
    header, rows = matrix_rows(experiment)
    context = {
        "title": title,
        "generated_at": timezone.now(),
        "experiment": experiment,
        "comparison": comparison,
        "header": header,
        "rows": rows,
    }
    return Report(render_to_string("experiments/report.html", context), "text/html; charset=utf-8", "html")
