"""Part 4 of a check-up: the evals the server ships (evals/list), imported as scenarios and run.

The server is inspected again (that records its shipped evals, evalhub.servers.services), every eval is imported
or brought up to date (evalhub.server_evals.services), and one run per eval is started. Those runs are admitted
whole by the daily quota or not at all: a check-up never runs half of a server's evals. Execution-level evals call
the server's tools for real, so they run only when its side effects are acknowledged. A run that fails is an error
finding, an inconclusive one a warning; the check-up waits for all of them (checkup_settle).
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.db import transaction

from evalhub import background
from evalhub.checkups.findings import Finding, Severity
from evalhub.checkups.models import Checkup
from evalhub.mcp_client import McpConnectionError
from evalhub.scenarios.models import Scenario
from evalhub.server_evals.services import shipped_evals_sync
from evalhub.servers.services import server_inspect
from evalhub.vault import SecretUnavailable
from runs.events import publish as run_events
from runs.models import Run
from runs.quota import QuotaExceeded, reserve_runs
from runs.services import run_create


def _finding(
    severity: Severity, code: str, message: str, advice: str, subject: str = "evals/list", evidence: str = ""
) -> Finding:
    return Finding("shipped_evals", severity, code, message, advice, subject, "", evidence)


def shipped_start(*, checkup: Checkup) -> tuple[list[Run], list[Finding]]:
    """Start the runs of the server's shipped evals; the findings of what could not be started."""
    server, user = checkup.server, checkup.created_by
    try:
        server_inspect(server=server)
    except (McpConnectionError, SecretUnavailable, background.Busy) as exc:
        return [], [
            _finding("error", "shipped_evals_unlisted", f"Listing the shipped evals failed: {exc}", "Fix evals/list.")
        ]
    shipped_evals_sync(server=server, user=user or AnonymousUser())
    linked = server.scenarios.exclude(shipped_eval_id="").filter(shipped_eval_removed_at=None).order_by("name")
    scenarios = list(linked.select_related("server", "provider"))
    found: list[Finding] = []
    if server.side_effects_acknowledged_at is None:
        skipped = [s for s in scenarios if s.level == Scenario.Level.EXECUTION]
        scenarios = [s for s in scenarios if s.level != Scenario.Level.EXECUTION]
        if skipped:
            found.append(
                _finding(
                    "info",
                    "shipped_evals_skipped",
                    f"{len(skipped)} execution-level eval(s) not run: they call the tools for real.",
                    "Acknowledge side effects for this server to run them.",
                    evidence=", ".join(s.shipped_eval_id for s in skipped)[:300],
                )
            )
    if not scenarios:
        return [], found
    try:
        with transaction.atomic():
            reserve_runs(len(scenarios))
            runs = [run_create(scenario=scenario, user=user) for scenario in scenarios]
            run_events.runs_queued(runs)
    except QuotaExceeded as exc:
        return [], [
            *found,
            _finding(
                "warning",
                "shipped_evals_not_run",
                f"The {len(scenarios)} shipped eval run(s) were not started: {exc}",
                "Check up again when the quota resets, or without the shipped evals.",
            ),
        ]
    return runs, found


def shipped_findings(run_ids: list[int]) -> list[Finding] | None:
    """A finding per shipped eval run that did not pass; None while any of them is still going."""
    if not run_ids:
        return []
    runs = list(Run.objects.filter(pk__in=run_ids).select_related("scenario").order_by("pk"))
    if any(run.status not in Run.FINISHED for run in runs):
        return None
    found = []
    for run in runs:
        if run.verdict == "pass":
            continue
        eval_id = run.scenario.shipped_eval_id or run.scenario.name
        inconclusive = run.verdict == "inconclusive" or run.status == Run.Status.CANCELLED
        found.append(
            _finding(
                "warning" if inconclusive else "error",
                "shipped_eval_inconclusive" if inconclusive else "shipped_eval_failed",
                f"The server's own eval {eval_id!r} "
                + ("was not decided" if inconclusive else "failed")
                + (f": {run.failure_reason}" if run.failure_reason else "."),
                "Open the run: an outage or a skipped judge (no judge model) leaves it undecided; check up again."
                if inconclusive
                else "Fix the server (or the eval) until its own eval passes.",
                subject=eval_id,
                evidence=f"run {run.pk}",
            )
        )
    return found
