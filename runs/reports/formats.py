"""Report formats of one run or a set of runs, all rendered from run records (see records.py).

Markdown and HTML for people (summary, per-scenario verdict and score, tools called, failures with their cause and
reasons, cost), JUnit XML for CI (one test case per run: a failure typed by its cause, an inconclusive run skipped),
JSON (the full records) and CSV (one row per run, for spreadsheets).
"""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from typing import Any
from xml.etree import ElementTree as ET

from django.template.loader import render_to_string
from django.utils import timezone

from runs.reports.records import failing_scores, is_inconclusive, replay_label, run_passes, runs_overview

CSV_COLUMNS = [
    "id",
    "scenario",
    "status",
    "stop_reason",
    "passed",
    "verdict",
    "failure_cause",
    "failure_reason",
    "score",
    "threshold",
    "model",
    "tools_called",
    "cost_usd",
    "duration_ms",
    "created_at",
    "started_at",
    "finished_at",
    "replay",
]


def usd(value: float | None) -> str:
    if value is None:
        return "unknown"
    return "$0" if value == 0 else (f"${value:.4f}" if value < 1 else f"${value:,.2f}")


def score_text(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def seconds(ms: int | None) -> str:
    return "—" if ms is None else f"{ms / 1000:.1f} s"


def verdict(record: dict[str, Any], *, min_score: float | None = None) -> str:
    status = record.get("status")
    if status in ("queued", "running"):
        return status
    if status == "cancelled":
        return "CANCELLED"
    if is_inconclusive(record):
        return "INCONCLUSIVE"
    return "PASS" if run_passes(record, min_score=min_score) else "FAIL"


def problems(record: dict[str, Any], *, min_score: float | None = None) -> list[str]:
    """Why a run did not pass, one line each: the run's error, failing scorers' reasons, a low --min-score."""
    lines: list[str] = []
    if record.get("failure_reason"):
        lines.append(record["failure_reason"])
    if error := record.get("error"):
        lines.append(f"Error at step {error.get('step')!r} ({error.get('kind')}): {error.get('message')}")
    for result in failing_scores(record):
        reason = result.get("error") or result.get("reason") or "no reason given"
        what = "errored" if result.get("outcome") == "errored" else f"scored {score_text(result.get('score'))}"
        advisory = f" (advisory, not deciding: {result['advisory_because']})" if result.get("advisory_because") else ""
        lines.append(f"{result.get('scorer_name')} {what}: {reason}{advisory}")
    if record.get("self_judging"):
        lines.append("self-judging: a judge's model is the model under test")
    if record.get("status") == "done" and not lines and not record.get("passed"):
        lines.append(record.get("score_reason") or "Below the pass threshold.")
    score: float | None = record.get("score")
    if min_score is not None and record.get("passed") and (score is None or score < min_score):
        lines.append(f"Score {score_text(score)} is below --min-score {min_score:.2f}.")
    return lines


def _context(records: list[dict[str, Any]], title: str, min_score: float | None) -> dict[str, Any]:
    rows = [
        {
            **record,
            "verdict": verdict(record, min_score=min_score),
            "problems": problems(record, min_score=min_score),
            "tools_text": " → ".join(record.get("tool_names") or []) or "—",
            "cost_text": usd(record.get("cost_usd")) if record.get("started_at") else "—",
            "score_text": score_text(record.get("score")),
            "duration_text": seconds(record.get("duration_ms")),
            "replay_text": replay_label(record),
        }
        for record in records
    ]
    overview = runs_overview(records, min_score=min_score)
    return {
        "title": title,
        "generated_at": timezone.now(),
        "rows": rows,
        "overview": overview,
        "pass_rate_text": "—" if overview["pass_rate"] is None else f"{overview['pass_rate']:.0%}",
        "average_text": score_text(overview["average_score"]),
        "cost_text": usd(overview["cost_usd"]),
        "replayed_text": f"{overview['replayed']} of them replayed from cassettes" if overview["replayed"] else "",
        "failing": [row for row in rows if row["problems"]],
        "single": rows[0] if len(rows) == 1 else None,
    }


def md_escape(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def to_markdown(records: list[dict[str, Any]], *, title: str, min_score: float | None = None) -> str:
    ctx = _context(records, title, min_score)
    o = ctx["overview"]
    out = [
        f"# {md_escape(title)}",
        "",
        f"Generated {ctx['generated_at']:%Y-%m-%d %H:%M} UTC · {o['runs']} run(s): **{o['passed']} passed**, "
        f"{o['failed']} failed, {o['inconclusive']} inconclusive ({o['errored']} errored), {o['unfinished']} unfinished"
        f" · pass rate {ctx['pass_rate_text']} · average score {ctx['average_text']} · cost {ctx['cost_text']}"
        + (f" · {ctx['replayed_text']}" if ctx["replayed_text"] else ""),
        "",
        "| Run | Scenario | Model | Result | Score | Tools called | Cost | Duration |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in ctx["rows"]:
        out.append(
            f"| #{row['id']} | {md_escape(row['scenario_name'])} | `{md_escape(row['model'])}` | {row['verdict']}"
            + (f" ({row['replay_text']})" if row["replay_text"] else "")
            + " | "
            f"{row['score_text']} / {row['pass_threshold']:.2f} | {md_escape(row['tools_text'])} | "
            f"{row['cost_text']} | {row['duration_text']} |"
        )
    if ctx["failing"]:
        out += ["", "## Failures", ""]
        for row in ctx["failing"]:
            out.append(f"### #{row['id']} {md_escape(row['scenario_name'])} — {row['verdict']}")
            out += ["", *[f"- {line}" for line in row["problems"]], ""]
    if single := ctx["single"]:
        out += ["", "## Scorers", ""]
        for score in single.get("scores", []):
            out.append(
                f"- **{md_escape(score['scorer_name'])}** ({score['outcome']}): {score_text(score['score'])} — "
                f"{md_escape(score.get('error') or score.get('reason') or '')}"
                + (f" _(advisory: {md_escape(score['advisory_because'])})_" if score.get("advisory_because") else "")
            )
        if single.get("all_tool_calls"):
            out += ["", "## Tool calls", ""]
            for n, call in enumerate(single["all_tool_calls"], 1):
                flag = " (error)" if call.get("isError") else ""
                args = json.dumps(call.get("args"), ensure_ascii=False)
                out.append(f"{n}. `{call.get('toolName')}`{flag} `{md_escape(args[:200])}`")
        if single.get("final_text"):
            out += ["", "## Final answer", "", *[f"> {line}" for line in single["final_text"].splitlines()]]
    return "\n".join(out).rstrip() + "\n"


def to_html(records: list[dict[str, Any]], *, title: str, min_score: float | None = None) -> str:
    return render_to_string("runs/report.html", _context(records, title, min_score))


def to_junit(records: list[dict[str, Any]], *, title: str = "EvalHub", min_score: float | None = None) -> str:
    """One <testcase> per run: a <failure> typed by its cause ("server", "agent", "budget"); an inconclusive run is
    <skipped> with its reason, never a failure: an outage says nothing about the agent or the server."""
    overview = runs_overview(records, min_score=min_score)
    suite = ET.Element(
        "testsuite",
        name=title,
        tests=str(len(records)),
        failures="0",
        errors="0",
        skipped="0",
        time=f"{overview['duration_ms'] / 1000:.3f}",
        timestamp=datetime.now().astimezone().isoformat(timespec="seconds"),
    )
    failures = skipped = 0
    for record in records:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"evalhub.{record.get('model') or 'model'}",
            name=str(record.get("scenario_name")),
            time=f"{(record.get('duration_ms') or 0) / 1000:.3f}",
        )
        properties = ET.SubElement(case, "properties")
        for name in ("id", "verdict", "failure_cause", "score", "pass_threshold", "cost_usd", "stop_reason", "status"):
            ET.SubElement(
                properties, "property", name=f"run_{name}" if name == "id" else name, value=str(record.get(name))
            )
        lines = problems(record, min_score=min_score)
        status = record.get("status")
        if status in ("queued", "running", "cancelled"):
            skipped += 1
            ET.SubElement(case, "skipped", message=f"Run #{record.get('id')} is {status}.")
        elif is_inconclusive(record):
            skipped += 1
            ET.SubElement(case, "skipped", message=f"inconclusive — {record.get('failure_reason') or 'undecided'}")
        elif not run_passes(record, min_score=min_score):
            failures += 1
            ET.SubElement(
                case,
                "failure",
                message=lines[0] if lines else "Did not pass.",
                type=record.get("failure_cause") or "fail",
            ).text = "\n".join(lines)
        tools = " → ".join(record.get("tool_names") or []) or "none"
        ET.SubElement(case, "system-out").text = (
            f"Run #{record.get('id')} · score {score_text(record.get('score'))} "
            f"(pass ≥ {record.get('pass_threshold')}) · tools: {tools} · cost {usd(record.get('cost_usd'))}"
        )
    suite.set("failures", str(failures))
    suite.set("skipped", str(skipped))
    root = ET.Element("testsuites", name=title, tests=suite.get("tests", "0"), failures=str(failures), errors="0")
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def spreadsheet_safe(value: object) -> str:
    text = "" if value is None else str(value)
    # A cell starting with = + - @ is a formula to spreadsheets: user-typed scenario names must stay text.
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def to_csv(records: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for r in records:
        writer.writerow(
            [
                spreadsheet_safe(value)
                for value in (
                    r["id"],
                    r["scenario_name"],
                    r["status"],
                    r.get("stop_reason"),
                    "" if r.get("passed") is None else ("yes" if r["passed"] else "no"),
                    r.get("verdict"),
                    r.get("failure_cause"),
                    r.get("failure_reason"),
                    r.get("score"),
                    r.get("pass_threshold"),
                    r.get("model"),
                    " > ".join(r.get("tool_names") or []),
                    r.get("cost_usd"),
                    r.get("duration_ms"),
                    r.get("created_at"),
                    r.get("started_at"),
                    r.get("finished_at"),
                    replay_label(r),
                )
            ]
        )
    return buffer.getvalue()


def to_json(records: list[dict[str, Any]], *, min_score: float | None = None) -> str:
    return json.dumps({"summary": runs_overview(records, min_score=min_score), "runs": records}, indent=2, default=str)
