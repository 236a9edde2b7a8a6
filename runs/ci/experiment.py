"""`manage.py evalhub run --models a,b --trials 5 …`: an experiment as a CI gate.

Starts the experiment (every trial admitted against the quota, or none), waits for it, prints the matrix and the
comparison with its baseline, writes JSON and JUnit (one test case per cell), and exits (runs.ci.runner.EXIT_CODES):
0 nothing failed; 1 a significant regression (with --fail-on-regression) or a cell below --min-pass-rate, over
decided trials (a trial the server failed, crash included, is a decided failure); 2 an infrastructure problem
(unknown scenario, tag or model, quota, no worker, a timeout, a cancelled experiment); 3 nothing failed but a cell
had more than --max-inconclusive inconclusive trials (an outage of the model provider, a lost worker, a skipped
judge), so the gate could not decide: run it again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain
from typing import Any, TextIO

from django.utils import timezone

from evalhub.ids import ACCEPTED, parse_id
from runs.ci.backends import Backend, InfraError
from runs.ci.runner import EXIT_FAILED, EXIT_INFRA, EXIT_PASSED, EXIT_UNDECIDED, Options, chosen_ids
from runs.events.stream import EventFilter
from runs.experiments.matrix import tally_text
from runs.experiments.reports import gate, matrix_rows, render_experiment_report, to_junit


@dataclass
class ExperimentOptions:
    models: list[str]
    trials: int
    modes: list[str] = field(default_factory=list)  # empty: each scenario's own tool mode
    # Tool-surface variants (runs/variants), each a column beside the server as it is.
    variants: list[dict[str, Any]] = field(default_factory=list)
    label: str = ""
    baseline: str = ""  # "pinned", an experiment id, or "" for none
    fail_on_regression: bool = False
    min_pass_rate: float | None = None
    # A cell with more inconclusive trials than this (after the one re-run each gets) cannot be decided: exit 3.
    max_inconclusive: int = 0
    rerun_inconclusive: bool = True


def table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def change_text(row: dict[str, Any]) -> str:
    """ "5/5 → 0/5, Fisher p = 0.008; causes: server 5 — Passes less often…": a compared cell for the terminal."""
    before, after = row["baseline"], row["candidate"]
    text = f"{before['passes']}/{before['counted']} → {after['passes']}/{after['counted']}"
    if row["p_value"] is not None:
        text += f", Fisher p = {row['p_value']:.3f}"
    if after["failure_causes"]:
        text += "; causes: " + tally_text(after["failure_causes"])
    return f"{text} — {row['description']}"


def _body(backend: Backend, options: Options, experiment: ExperimentOptions) -> dict[str, Any]:
    body: dict[str, Any] = {
        "models": [{"model": model} for model in experiment.models],
        "trials": experiment.trials,
        "modes": experiment.modes,
        "variants": experiment.variants,
        "label": experiment.label,
        "rerun_inconclusive": experiment.rerun_inconclusive,
    }
    if options.judges:
        body["judges"] = options.judges
    # One tag and nothing else is recorded as the tag, so the experiment can be (and use) the tag's pinned baseline.
    if options.server_override:
        raise InfraError("The server flags (--server-url, --server-command, --header…) do not apply to --models yet.")
    if (
        len(options.tags) == 1
        and not options.scenarios
        and not (options.skip_tags or options.include or options.exclude)
    ):
        body["tag"] = options.tags[0]
    else:
        body["scenario_ids"] = chosen_ids(backend, options)
    if experiment.baseline == "pinned":
        if "tag" not in body:
            raise InfraError("--baseline pinned needs exactly one --tag: baselines are pinned per tag.")
        body["baseline_id"] = "pinned"
    elif experiment.baseline:
        baseline_id = parse_id(experiment.baseline)
        if baseline_id is None:
            raise InfraError(
                f"--baseline takes 'pinned' or an experiment id ({ACCEPTED}), not {experiment.baseline!r}."
            )
        body["baseline_id"] = baseline_id
    return body


def _wait(backend: Backend, experiment_id: int, options: Options, *, out: TextIO, started: datetime) -> dict[str, Any]:
    """Until the experiment is done, printing its progress as its experiment.progress events say; it is re-read when
    it ends, and after --poll seconds without an event (which also closes trials whose worker died)."""
    began = time.monotonic()
    record: dict[str, Any] = {}
    shown = -1
    only = EventFilter(experiment_id=experiment_id, types=("experiment.progress",))
    for event in chain([None], backend.follow(only, keepalive=min(options.poll_seconds, options.worker_timeout / 4))):
        if event is not None and event.type == "experiment.progress":
            record = {**record, "status": event.data["status"]}
            record["progress"] = {"finished": event.data["finished"], "total": event.data["total"]}
        if event is None or record["status"] != "running":
            record = backend.experiment(experiment_id)
        progress = record["progress"]
        elapsed = time.monotonic() - began
        if progress["finished"] != shown:
            shown = progress["finished"]
            out.write(f"{progress['finished']} / {progress['total']} runs · {elapsed:.0f} s\n")
            out.flush()
        if record["status"] != "running":
            return record
        if elapsed > options.worker_timeout and progress["finished"] == 0:
            seen = backend.worker_last_seen()
            if seen is None or seen < started:
                raise InfraError(
                    f"No worker finished a run within {options.worker_timeout:.0f} s. "
                    "Start one: python -m celery -A evalhub worker"
                )
        if elapsed > options.timeout:
            raise InfraError(f"Timed out after {options.timeout:.0f} s with experiment #{experiment_id} unfinished.")
    raise InfraError(f"The event stream of {backend.where} ended.")


def run_experiment_ci(
    backend: Backend, options: Options, experiment: ExperimentOptions, *, out: TextIO, err: TextIO
) -> int:
    try:
        return _run(backend, options, experiment, out=out, err=err)
    except InfraError as exc:
        err.write(f"error: {exc}\n")
        return EXIT_INFRA


def _pinned(record: dict[str, Any]) -> str:
    """Whose pin the gate trusts, when the baseline was the tag's pin: a reader of the log can judge it."""
    pin = record.get("baseline_pin")
    if not pin:
        return ""
    by = pin["pinned_by"] or "an unrecorded user"
    return f" (the baseline pinned for #{pin['tag']} by {by} at {pin['pinned_at']})"


def _write_changes(title: str, comparison: dict[str, Any], out: TextIO) -> None:
    out.write(f"\n{title}: {comparison['summary']}\n")
    for row in comparison["cells"]:
        if row["kind"] in ("regressed", "fixed"):
            out.write(f"  {row['kind']}: {row['scenario_name']} on {row['model']}: {change_text(row)}\n")


def _run(backend: Backend, options: Options, plan: ExperimentOptions, *, out: TextIO, err: TextIO) -> int:
    if not options.scenarios and not options.tags:
        raise InfraError("Name what to run: --scenario NAME and/or --tag TAG (each may be repeated).")
    body = _body(backend, options, plan)
    started_at = timezone.now()
    backend.ping_worker()  # queued first, so a live worker records a heartbeat before it takes the runs
    record = backend.start_experiment(body)
    out.write(
        f"Started experiment #{record['id']} on {backend.where}: {record['progress']['total']} runs "
        f"({len(record['cells'])} cells, {record['trials']} trials)\n"
    )
    if plan.baseline == "pinned" and record["baseline_id"] is None:
        err.write(f"warning: no baseline is pinned for #{body['tag']} yet, so nothing is compared.\n")
    record = _wait(backend, record["id"], options, out=out, started=started_at)
    comparison = backend.compare(record["id"]) if record["baseline_id"] else None
    header, rows = matrix_rows(record)
    out.write("\n" + table(header, rows) + "\n")
    if comparison:
        baseline = f"experiment #{comparison['baseline_id']}{_pinned(record)}"
        _write_changes(f"Compared with {baseline}", comparison, out)
    for compared in record.get("variant_comparisons", []):
        _write_changes(f"Variant “{compared['variant']}” against the server as it is", compared, out)
    # Without a regression gate every trial must pass, as `evalhub run` wants every run to pass.
    min_rate = plan.min_pass_rate if plan.fail_on_regression or plan.min_pass_rate is not None else 1.0
    results = gate(
        record,
        comparison,
        fail_on_regression=plan.fail_on_regression,
        min_pass_rate=min_rate,
        max_inconclusive=plan.max_inconclusive,
    )
    title = f"EvalHub experiment #{record['id']}"
    if options.json_path:
        options.json_path.write_text(render_experiment_report(record, comparison, "json", title=title).content)
    if options.junit_path:
        options.junit_path.write_text(to_junit(results, title=title))
    failing = [r for r in results if r.failures]
    undecided = [r for r in results if r.undecided and not r.failures]
    for result in [*failing, *undecided]:
        for line in result.failures or result.undecided:
            err.write(f"{result.cell['scenario_name']} on {result.cell['model']}: {line}\n")
    if options.record:
        out.write(
            f"\nRecorded as experiment #{record['id']}. Replay it with no model and no key: "
            f"evalhub run --replay {record['id']}\n"
        )
    passed = len(results) - len(failing) - len(undecided)
    out.write(f"\n{passed}/{len(results)} cells passed" + (f", {len(undecided)} undecided" if undecided else "") + "\n")
    if record["status"] == "cancelled":
        return EXIT_INFRA
    # A decided failure is news whatever else happened; only a gate with nothing failed can be left undecided.
    if failing:
        return EXIT_FAILED
    return EXIT_UNDECIDED if undecided else EXIT_PASSED
