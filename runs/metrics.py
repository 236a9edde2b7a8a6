"""Figures about runs over a time window, as JSON for the API and as Prometheus text for scrapers."""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Avg, Count, Q, Sum
from django.utils import timezone

from evalhub.models import WorkerHeartbeat
from runs.heartbeat import runs_reap_stale
from runs.models import Run
from runs.quota import quota_status
from runs.verdict import CAUSES

WINDOW_PATTERN = r"^[1-9][0-9]{0,3}[mhd]$"
_WINDOW = re.compile(r"^(\d{1,4})([mhd])$")
_UNIT_SECONDS = {"m": 60, "h": 3600, "d": 86400}
# Percentiles are computed from at most this many of the window's newest durations.
PERCENTILE_SAMPLE = 50_000


def parse_window(value: str) -> timedelta:
    """ "30m", "24h", "7d" (at most 366 days). ValueError with a clear message."""
    match = _WINDOW.match(value.strip().lower())
    if not match or int(match.group(1)) == 0:
        raise ValueError(f"Not a window: {value!r}. Use a number and m, h or d, e.g. 30m, 24h or 7d.")
    return timedelta(seconds=int(match.group(1)) * _UNIT_SECONDS[match.group(2)])


def _percentile(sorted_values: list[int], fraction: float) -> float | None:
    if not sorted_values:
        return None
    index = min(round(fraction * (len(sorted_values) - 1)), len(sorted_values) - 1)
    return float(sorted_values[index])


def runs_metrics(*, window: str = "24h", now: datetime | None = None) -> dict[str, Any]:
    # Count a dead worker's runs as the errors they are, even when no worker is alive to reap them.
    runs_reap_stale()
    now = now or timezone.now()
    since = now - parse_window(window)
    window_runs = Run.objects.filter(created_at__gte=since)
    # Replays (runs.cassettes) repeat recorded runs' answers and costs: every figure here is of live runs, and says
    # how many replays it left out.
    replayed = window_runs.exclude(replay="").count()
    runs = window_runs.filter(replay="")
    by_status = dict.fromkeys(Run.Status.values, 0)
    for status, count in runs.order_by().values("status").annotate(n=Count("id")).values_list("status", "n"):
        by_status[status] = count
    figures = runs.aggregate(
        passed=Count("id", filter=Q(verdict="pass")),
        failed=Count("id", filter=Q(verdict="fail")),
        inconclusive=Count("id", filter=Q(verdict="inconclusive")),
        finished=Count("id", filter=Q(status__in=Run.FINISHED)),
        average_score=Avg("score"),
        cost=Sum("cost_usd"),
        priced=Count("id", filter=Q(cost_usd__isnull=False)),
        unpriced=Count("id", filter=Q(cost_usd__isnull=True, started_at__isnull=False)),
        average_duration=Avg("duration_ms"),
    )
    durations: list[int] = sorted(
        ms
        for ms in runs.filter(duration_ms__isnull=False)
        .order_by("-created_at")
        .values_list("duration_ms", flat=True)[:PERCENTILE_SAMPLE]
        if ms is not None
    )
    cost = float(figures["cost"]) if figures["cost"] is not None else 0.0
    decided = figures["passed"] + figures["failed"]
    causes = dict.fromkeys(CAUSES, 0)
    for cause, count in (
        runs.exclude(failure_cause="")
        .order_by()
        .values("failure_cause")
        .annotate(n=Count("id"))
        .values_list("failure_cause", "n")
    ):
        causes[cause] = count
    return {
        "window": window,
        "since": since.isoformat(),
        "generated_at": now.isoformat(),
        "runs": {"total": sum(by_status.values()), "by_status": by_status},
        "replayed_runs": replayed,
        "passed": figures["passed"],
        "failed": figures["failed"],
        "inconclusive": figures["inconclusive"],
        # Of the decided runs: an inconclusive run (an outage, a lost worker) counts neither way.
        "pass_rate": figures["passed"] / decided if decided else None,
        "failure_causes": causes,
        "average_score": figures["average_score"],
        "cost_usd": {
            "total": round(cost, 6),
            "average": round(cost / figures["priced"], 6) if figures["priced"] else None,
            # Runs whose model's price is unknown are left out of the total rather than guessed.
            "runs_with_unknown_cost": figures["unpriced"],
        },
        "duration_ms": {
            "average": figures["average_duration"],
            "p50": _percentile(durations, 0.5),
            "p95": _percentile(durations, 0.95),
        },
    }


def _line(name: str, value: float | int | None, labels: dict[str, str] | None = None) -> str:
    text = ",".join(f'{key}="{val}"' for key, val in (labels or {}).items())
    number = "NaN" if value is None else (str(value) if isinstance(value, int) else repr(float(value)))
    return f"{name}{{{text}}} {number}" if text else f"{name} {number}"


def prometheus_text(*, window: str = "24h") -> str:
    """The Prometheus exposition format (text 0.0.4): gauges over the window, plus quota and worker liveness."""
    metrics = runs_metrics(window=window)
    labels = {"window": window}
    lines: list[str] = []

    def gauge(name: str, help_text: str, samples: list[tuple[dict[str, str], float | int | None]]) -> None:
        lines.extend([f"# HELP {name} {help_text}", f"# TYPE {name} gauge"])
        lines.extend(_line(name, value, {**labels, **extra}) for extra, value in samples)

    gauge(
        "evalhub_runs",
        "Runs created in the window, by status.",
        [({"status": s}, n) for s, n in metrics["runs"]["by_status"].items()],
    )
    gauge(
        "evalhub_runs_verdict",
        "Finished runs in the window, by verdict.",
        [
            ({"verdict": v}, metrics[key])
            for v, key in (("pass", "passed"), ("fail", "failed"), ("inconclusive", "inconclusive"))
        ],
    )
    gauge(
        "evalhub_runs_failure_cause",
        "Runs in the window that did not pass, by whose failure it was.",
        [({"cause": c}, n) for c, n in metrics["failure_causes"].items()],
    )
    gauge("evalhub_runs_pass_rate", "Share of decided runs in the window that passed.", [({}, metrics["pass_rate"])])
    gauge("evalhub_runs_score_average", "Mean score of scored runs in the window.", [({}, metrics["average_score"])])
    gauge(
        "evalhub_runs_cost_usd",
        "Total cost in USD of runs in the window (known prices).",
        [({}, metrics["cost_usd"]["total"])],
    )
    gauge(
        "evalhub_runs_duration_ms_average",
        "Mean duration of runs in the window.",
        [({}, metrics["duration_ms"]["average"])],
    )
    gauge(
        "evalhub_runs_duration_ms",
        "Duration percentiles of runs in the window.",
        [({"quantile": "0.5"}, metrics["duration_ms"]["p50"]), ({"quantile": "0.95"}, metrics["duration_ms"]["p95"])],
    )
    quota = quota_status()
    lines += [
        "# HELP evalhub_quota_used Runs started today (UTC).",
        "# TYPE evalhub_quota_used gauge",
        _line("evalhub_quota_used", quota.used),
        "# HELP evalhub_quota_limit The daily run quota.",
        "# TYPE evalhub_quota_limit gauge",
        _line("evalhub_quota_limit", quota.limit),
    ]
    beat = WorkerHeartbeat.latest()
    lines += [
        "# HELP evalhub_worker_last_seen_timestamp_seconds When a worker last proved it was alive (Unix time).",
        "# TYPE evalhub_worker_last_seen_timestamp_seconds gauge",
        _line("evalhub_worker_last_seen_timestamp_seconds", beat.last_seen.timestamp() if beat else None),
    ]
    return "\n".join(lines) + "\n"
