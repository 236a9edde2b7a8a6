"""`manage.py evalhub run`: start runs, wait with a progress display, summarise, write reports, pick the exit code.

Waiting follows the runs' live events (GET /api/v1/events, or the events table locally): progress moves the moment
a run starts, calls a tool or finishes. The runs are re-read only when no event came for --poll seconds, which also
closes runs whose worker died.

Exit codes: 0 every run passed; 1 a run finished below its threshold (or --min-score); 2 an infrastructure
problem: no such scenario or tag, quota exhausted, a server or model that could not be reached (the run ended in
"error"), no worker picking up the runs, or the wait timing out.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from django.utils import timezone

from runs.ci.backends import Backend, InfraError
from runs.ci.selection import narrowed
from runs.events.sse import Event
from runs.events.stream import GAP, EventFilter
from runs.models import Run
from runs.reports import render_report, run_passes
from runs.reports.formats import score_text, usd, verdict
from runs.reports.records import is_inconclusive, replay_label
from runs.run_choices import RunChoices
from runs.server_override import banner

EXIT_PASSED, EXIT_FAILED, EXIT_INFRA, EXIT_UNDECIDED = 0, 1, 2, 3
# What `manage.py evalhub run --help` and the README say of each exit code.
EXIT_CODES = {
    EXIT_PASSED: "every run passed (an experiment: no cell failed the gate and every cell was decided)",
    EXIT_FAILED: "a run failed (its verdict is fail: the agent's, the server's or a budget's; a server that could "
    "not start fails its run); an experiment: a cell regressed (--fail-on-regression) or passed less often than "
    "--min-pass-rate (without either: any decided trial failed), counting decided trials only",
    EXIT_INFRA: "infrastructure: an unknown scenario, tag or model, the quota used up, no worker, --timeout, a "
    "cancelled experiment",
    EXIT_UNDECIDED: "nothing failed, but a run was inconclusive (the provider failed, a worker was lost, a judge was "
    "skipped); an experiment: a cell had more than --max-inconclusive inconclusive trials, or none decided: run "
    "it again",
}
BAR_WIDTH = 28


def snapshot_mode(*, update: bool, environ: Mapping[str, str]) -> str:
    """The runs' `snapshots` setting: --update-snapshots re-records; under CI=true a run records no first snapshot,
    so a CI job never invents the golden values it then compares with (mcptest refuses the same)."""
    if update:
        return "update"
    return "ci" if environ.get("CI", "").strip().lower() == "true" else ""


@dataclass
class Options:
    scenarios: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    model: str = ""
    wait: bool = False
    json_path: Path | None = None
    junit_path: Path | None = None
    min_score: float | None = None
    acknowledge_side_effects: bool = False
    judges: str = ""  # "all", "calibrated", or "" for the server's setting
    snapshots: str = ""  # "update" (--update-snapshots), "ci" (CI=true: no new snapshots) or "" (runs.snapshots)
    skip_tags: list[str] = field(default_factory=list)
    include: list[str] = field(default_factory=list)  # scenario name patterns (fnmatch)
    exclude: list[str] = field(default_factory=list)
    server_override: dict[str, Any] = field(default_factory=dict)  # runs/server_override.py
    poll_seconds: float = 5.0
    worker_timeout: float = 60.0
    timeout: float = 1800.0
    # `--replay`: an experiment's id, or "latest" (each named scenario's latest recorded run); "" runs live.
    replay: str = ""
    replay_mcp: str = "cassette"  # or "live": the server as it is now answers, checked against the cassette
    record: bool = False  # `--record`: say how to replay what was recorded


REPLAY_LATEST = "latest"


class Progress:
    """A one-line bar redrawn in place on a terminal; one plain line per change of a run's status otherwise."""

    def __init__(self, out: TextIO, *, tty: bool, names: dict[int, str]) -> None:
        self.out, self.tty, self.names = out, tty, names
        self.seen: dict[int, str] = {}

    def step(self, event: Event) -> None:
        """A tool call, as a plain line (a terminal's bar has no room for them)."""
        data = event.data
        if self.tty or data.get("kind") != "tool":
            return
        outcome = " · error" if data.get("is_error") else ""
        duration = f" ({data['duration_ms']} ms)" if data.get("duration_ms") is not None else ""
        name = self.names.get(data["run_id"], "")
        self.out.write(f"run #{data['run_id']} {name}: called {data['tool_name']}{duration}{outcome}\n")
        self.out.flush()

    def update(self, runs: list[dict[str, Any]], elapsed: float) -> None:
        if self.tty:
            done = sum(run["status"] in Run.FINISHED for run in runs)
            running = sum(run["status"] == Run.Status.RUNNING for run in runs)
            filled = round(BAR_WIDTH * done / max(len(runs), 1))
            bar = "█" * filled + "░" * (BAR_WIDTH - filled)
            self.out.write(f"\r{bar} {done}/{len(runs)} finished · {running} running · {elapsed:4.0f} s ")
            self.out.flush()
            return
        for run in runs:
            if self.seen.get(run["id"]) != run["status"]:
                self.seen[run["id"]] = run["status"]
                detail = (
                    f" · score {score_text(run['score'])} · {verdict(run)}" if run["status"] in Run.FINISHED else ""
                )
                self.out.write(f"run #{run['id']} {self.names.get(run['id'], '')}: {run['status']}{detail}\n")
        self.out.flush()

    def close(self) -> None:
        if self.tty:
            self.out.write("\n")


def summary_table(records: list[dict[str, Any]], *, min_score: float | None) -> str:
    header = ["Scenario", "Run", "Status", "Score", "Pass", "Tools", "Cost"]
    rows = [
        [
            record["scenario_name"],
            f"#{record['id']}" + (f" ({label})" if (label := replay_label(record)) else ""),
            record["status"],
            score_text(record.get("score")),
            verdict(record, min_score=min_score),
            ", ".join(dict.fromkeys(record.get("tool_names") or [])) or "—",
            usd(record.get("cost_usd")) if record.get("started_at") else "—",
        ]
        for record in records
    ]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = [
        "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def exit_code(records: list[dict[str, Any]], *, min_score: float | None) -> int:
    """1 when a run failed, else 3 when one was inconclusive (an outage decides nothing), else 0."""
    if not all(run_passes(r, min_score=min_score) or is_inconclusive(r) for r in records):
        return EXIT_FAILED
    return EXIT_UNDECIDED if any(is_inconclusive(r) for r in records) else EXIT_PASSED


def merge_event(runs: dict[int, dict[str, Any]], event: Event) -> None:
    """What a run event says of its run, into the runs being watched (as GET /runs lists them)."""
    run = runs.get(event.data.get("run_id"))  # type: ignore[arg-type]
    if run is None:
        return
    # A status only moves forward: a run.started read after the run finished leaves it finished.
    if event.type == "run.started" and run["status"] == Run.Status.QUEUED:
        run["status"] = Run.Status.RUNNING
    elif event.type in ("run.finished", "run.scored"):
        fields = (
            "status",
            "stop_reason",
            "score",
            "passed",
            "verdict",
            "failure_cause",
            "pass_threshold",
            "cost_usd",
            "duration_ms",
        )
        run.update({name: event.data[name] for name in fields if name in event.data})


def _wait(backend: Backend, run_ids: list[int], options: Options, progress: Progress, started: datetime) -> None:
    began = checked = time.monotonic()
    runs = {run["id"]: run for run in backend.poll(run_ids)}
    progress.update(list(runs.values()), 0)
    # Quiet long enough to check on the worker well before --worker-timeout passes.
    keepalive = min(options.poll_seconds, max(options.worker_timeout / 4, 0.5))
    for event in backend.follow(EventFilter(run_ids=tuple(run_ids)), keepalive=keepalive):
        now = time.monotonic()
        if event is not None and event.type == "run.step":
            progress.step(event)
        elif event is not None:
            merge_event(runs, event)
        if event is None or event.type == GAP or now - checked > options.poll_seconds:
            runs, checked = {run["id"]: run for run in backend.poll(run_ids)}, now
        elapsed = now - began
        progress.update(list(runs.values()), elapsed)
        if all(run["status"] in Run.FINISHED for run in runs.values()):
            return
        if elapsed > options.worker_timeout and all(run["status"] == Run.Status.QUEUED for run in runs.values()):
            seen = backend.worker_last_seen()
            if seen is None or seen < started:
                last = f"last seen {seen:%Y-%m-%d %H:%M:%S} UTC" if seen else "never seen"
                raise InfraError(
                    f"No worker picked up the runs within {options.worker_timeout:.0f} s (a worker was {last}). "
                    "Start one: python -m celery -A evalhub worker"
                )
        if elapsed > options.timeout:
            raise InfraError(f"Timed out after {options.timeout:.0f} s with runs still unfinished: {run_ids}.")
    raise InfraError(f"The event stream of {backend.where} ended.")


def chosen_ids(backend: Backend, options: Options) -> list[int]:
    """The scenarios to run: by --scenario and --tag (or, with --include alone, every one), then narrowed."""
    if not options.scenarios and not options.tags and not options.include:
        raise InfraError("Name what to run: --scenario NAME, --tag TAG or --include PATTERN (each may be repeated).")
    narrowing = options.skip_tags or options.include or options.exclude
    if not narrowing:
        return backend.scenario_ids(names=options.scenarios, tags=options.tags)
    rows = backend.scenario_rows()
    if options.scenarios or options.tags:
        ids = set(backend.scenario_ids(names=options.scenarios, tags=options.tags))
        rows = [row for row in rows if row["id"] in ids]
    kept = narrowed(rows, skip_tags=options.skip_tags, include=options.include, exclude=options.exclude)
    if not kept:
        raise InfraError("No scenario is left once --skip-tag, --include and --exclude are applied.")
    return kept


def run_ci(backend: Backend, options: Options, *, out: TextIO, err: TextIO, tty: bool) -> int:
    """The whole command; returns its exit code. Infrastructure problems are reported on `err`."""
    try:
        return _run(backend, options, out=out, err=err, tty=tty)
    except InfraError as exc:
        err.write(f"error: {exc}\n")
        return EXIT_INFRA


def _run(backend: Backend, options: Options, *, out: TextIO, err: TextIO, tty: bool) -> int:
    replay_experiment = _replay_experiment(options)
    scenario_ids = [] if replay_experiment else chosen_ids(backend, options)
    if options.server_override:
        if options.replay:
            raise InfraError("--replay replays recorded runs against their own servers: leave out the server flags.")
        out.write(banner(options.server_override) + "\n")
    started_at = timezone.now()
    if options.wait:
        backend.ping_worker()  # queued first, so a live worker records a heartbeat before it takes the runs
    if options.replay:
        started = backend.replay(experiment_id=replay_experiment, scenario_ids=scenario_ids, mcp=options.replay_mcp)
    else:
        started = backend.start(
            scenario_ids=scenario_ids,
            choices=RunChoices(
                model=options.model,
                judges=options.judges,
                snapshots=options.snapshots,
                server_override=options.server_override or None,
            ),
            acknowledge_side_effects=options.acknowledge_side_effects,
        )
    if started.refused:
        err.write(f"warning: {started.refused} run(s) refused: {started.refusal}\n")
    if not started.run_ids:
        raise InfraError(started.refusal or "No run could be started.")
    out.write(
        f"Started {len(started.run_ids)} run(s) on {backend.where}: {', '.join(f'#{i}' for i in started.run_ids)}\n"
    )
    if options.wait:
        names = {run["id"]: run["scenario_name"] for run in backend.poll(started.run_ids)}
        progress = Progress(out, tty=tty, names=names)
        try:
            _wait(backend, started.run_ids, options, progress, started_at)
        finally:
            progress.close()
    records = backend.records(started.run_ids) if options.wait else backend.poll(started.run_ids)
    _write_reports(records, options)
    if not options.wait:
        return EXIT_INFRA if started.refused else EXIT_PASSED
    out.write("\n" + summary_table(records, min_score=options.min_score) + "\n")
    code = exit_code(records, min_score=options.min_score)
    if started.refused:
        code = EXIT_INFRA
    passed = sum(run_passes(r, min_score=options.min_score) for r in records)
    out.write(
        f"\n{passed}/{len(records)} passed"
        + (f" (min score {options.min_score:.2f})" if options.min_score is not None else "")
        + "\n"
    )
    for record in records:
        if record.get("failure_reason") or (record["status"] == Run.Status.ERROR and record.get("error")):
            why = record.get("failure_reason") or record["error"].get("message")
            err.write(f"run #{record['id']} {record['scenario_name']}: {why}\n")
    if options.replay:
        out.write(
            f"All {len(records)} run(s) were replays from cassettes ({options.replay_mcp}): no model was called.\n"
        )
    elif options.record:
        selection = " ".join([*(f"--scenario {s!r}" for s in options.scenarios), *(f"--tag {t}" for t in options.tags)])
        out.write(f"Recorded. Replay with no model and no key: evalhub run {selection} --replay {REPLAY_LATEST}\n")
    return code


def _replay_experiment(options: Options) -> int | None:
    """--replay's experiment id; None for "latest" or no replay. InfraError for anything else."""
    if not options.replay or options.replay == REPLAY_LATEST:
        if options.replay and not options.scenarios and not options.tags:
            raise InfraError("--replay latest replays the latest recorded run of each --scenario / --tag: name them.")
        return None
    if not options.replay.isdigit():
        raise InfraError(f"--replay takes an experiment id or {REPLAY_LATEST!r}, not {options.replay!r}.")
    if options.scenarios or options.tags:
        raise InfraError("--replay EXPERIMENT_ID replays that experiment's runs: leave out --scenario and --tag.")
    return int(options.replay)


def _write_reports(records: list[dict[str, Any]], options: Options) -> None:
    if options.json_path:
        report = render_report(records, "json", title="EvalHub CI", min_score=options.min_score)
        options.json_path.write_text(report.content)
    if options.junit_path:
        report = render_report(records, "junit", title="EvalHub", min_score=options.min_score)
        options.junit_path.write_text(report.content)
