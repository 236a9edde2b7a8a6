"""Check-up services that the page, the API, the task and the CLI share.

`checkup_start` takes one run from the daily quota (the static, compliance and runtime parts call no model: one
run together) and queues the task; `checkup_execute` (the task's body, or the CLI's, inline) probes the server,
judges what it saw, and starts the shipped evals' runs, admitted whole by the quota or not at all;
`checkup_settle` closes the check-up once those runs have finished, adding their findings.
"""

from __future__ import annotations

import shlex
import time
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.utils import timezone

from evalhub.checkups import events
from evalhub.checkups.compliance import compliance_findings
from evalhub.checkups.findings import Finding, Section, compare, ordered, summarise
from evalhub.checkups.models import Checkup
from evalhub.checkups.probe import ProbeOptions, Progress, probe
from evalhub.checkups.shipped import shipped_findings, shipped_start
from evalhub.checkups.static import static_findings
from evalhub.checkups.sweep import runtime_findings
from evalhub.mcp_client import McpConnectionError
from evalhub.server_evals.services import side_effects_acknowledge
from evalhub.servers.models import McpServer
from evalhub.vault import SecretUnavailable
from runs.quota import reserve_run

# One request of a check-up waits at most this long (or the server's request timeout, if shorter): a hung tool
# costs this, not the server's minute.
CALL_SECONDS = 10.0
# A progress event at most this often (the row is updated every step).
PROGRESS_EVERY_SECONDS = 1.0


def checkup_start(
    *,
    server: McpServer,
    user: AbstractBaseUser | AnonymousUser | None,
    acknowledge_side_effects: bool = False,
    shipped_evals: bool = True,
    queue: bool = True,
) -> Checkup:
    """Reserve one run of quota, record the acknowledgment if given, queue the check-up (not with `queue=False`:
    the CLI executes it itself). Raises QuotaExceeded, or PermissionDenied when `user` may not acknowledge side
    effects for this server."""
    from evalhub.checkups.tasks import execute_checkup

    with transaction.atomic():
        if acknowledge_side_effects:
            side_effects_acknowledge(server=server, user=user or AnonymousUser())
        reserve_run()
        checkup = Checkup.objects.create(
            server=server,
            created_by=user if isinstance(user, get_user_model()) else None,
            with_shipped_evals=shipped_evals,
        )
        events.checkup_queued(checkup)
        if queue:
            transaction.on_commit(lambda: execute_checkup.delay(checkup.pk))
    return checkup


def checkup_execute(*, checkup_id: int) -> Checkup | None:
    """Do parts 1-3 and start part 4; None when another worker claimed it already."""
    if not Checkup.objects.filter(pk=checkup_id, status=Checkup.Status.QUEUED).update(
        status=Checkup.Status.RUNNING, started_at=timezone.now()
    ):
        return None
    checkup = Checkup.objects.select_related("server").get(pk=checkup_id)
    server = checkup.server
    call_seconds = min(server.request_timeout, CALL_SECONDS)
    options = ProbeOptions(
        call_seconds=call_seconds,
        allow_destructive=server.side_effects_acknowledged_at is not None,
        progress=_progress_writer(checkup),
    )
    try:
        observations = probe(server.to_config(), options)
    except (McpConnectionError, SecretUnavailable) as exc:
        return _unreachable(checkup, exc)
    except Exception:
        # EvalHub's own failure: the check-up ends (with no verdict) rather than stay "running" for ever.
        Checkup.objects.filter(pk=checkup.pk).update(
            status=Checkup.Status.FINISHED,
            finished_at=timezone.now(),
            error={"kind": "internal_error", "message": "EvalHub failed during the check-up; see its log."},
        )
        raise
    tools = observations["lists"]["tools"]["items"]
    findings = (
        static_findings(tools, observations["calls"])
        + compliance_findings(observations)
        + runtime_findings(observations, call_seconds=call_seconds)
    )
    checkup.observations = observations
    checkup.findings = [f.to_dict() for f in ordered(findings)]
    if checkup.with_shipped_evals and "evals" in observations["lists"]:
        checkup.progress = {"stage": "shipped_evals", "done": 0, "total": len(observations["lists"]["evals"]["items"])}
        started, refused = shipped_start(checkup=checkup)
        checkup.run_ids = [run.pk for run in started]
        checkup.findings += [f.to_dict() for f in refused]
    checkup.status = Checkup.Status.WAITING
    checkup.save()
    return checkup_settle(checkup=checkup)


def _progress_writer(checkup: Checkup) -> Progress:
    last: dict[str, Any] = {"at": 0.0, "stage": ""}

    def write(stage: str, done: int, total: int) -> None:
        checkup.progress = {"stage": stage, "done": done, "total": total}
        Checkup.objects.filter(pk=checkup.pk).update(progress=checkup.progress)
        now = time.monotonic()
        if stage != last["stage"] or now - last["at"] >= PROGRESS_EVERY_SECONDS or done == total:
            last.update(at=now, stage=stage)
            events.checkup_progress(checkup)

    return write


def _unreachable(checkup: Checkup, exc: McpConnectionError | SecretUnavailable) -> Checkup:
    error = (
        exc.to_dict() if isinstance(exc, McpConnectionError) else {"kind": "secret_unavailable", "message": str(exc)}
    )
    finding = Finding(
        "compliance",
        "error",
        "unreachable",
        f"The check-up could not talk to the server: {error['message']}",
        "Check the server's command or URL and credentials on its page, then check up again.",
        checkup.server.target[:200],
        "connection",
        error.get("stderr_tail", "")[-500:],
    )
    checkup.error = error
    checkup.findings = [finding.to_dict()]
    checkup.status = Checkup.Status.WAITING
    checkup.save()
    return checkup_settle(checkup=checkup)


def checkup_settle(*, checkup: Checkup) -> Checkup:
    """Finish a waiting check-up once its runs have all finished (at once when it has none): add their findings,
    score, decide the verdict, announce it. Pages, the API and the CLI call it as they read a check-up."""
    if checkup.status != Checkup.Status.WAITING:
        return checkup
    extra = shipped_findings(checkup.run_ids)
    if extra is None:
        return checkup  # runs still going
    with transaction.atomic():
        locked = Checkup.objects.select_for_update().get(pk=checkup.pk)
        if locked.status != Checkup.Status.WAITING:
            return locked
        findings = ordered([*locked.finding_objects(), *extra])
        ran: list[Section] = ["static", "compliance", "runtime"] if locked.error is None else ["compliance"]
        if locked.run_ids or any(f.section == "shipped_evals" for f in findings):
            ran.append("shipped_evals")
        summary = summarise(findings, ran=ran)
        locked.findings = [f.to_dict() for f in findings]
        locked.summary = summary.to_dict()
        locked.score, locked.passed = summary.score, summary.passed
        locked.status = Checkup.Status.FINISHED
        locked.finished_at = timezone.now()
        locked.progress = {}
        locked.save()
    events.checkup_finished(locked)
    return locked


def checkup_compare(*, before: Checkup, after: Checkup) -> dict[str, Any]:
    """What got better or worse from one check-up of a server to a later one."""
    if before.server_id != after.server_id:
        raise ValueError("Only two check-ups of the same server can be compared.")
    result = compare(before.finding_objects(), after.finding_objects()).to_dict()
    return {"before": before.pk, "after": after.pk, "score_change": _change(before.score, after.score), **result}


def _change(before: float | None, after: float | None) -> float | None:
    return None if before is None or after is None else round(after - before, 4)


def server_on_the_fly(*, url: str = "", command: str = "") -> McpServer:
    """The registered server for a URL or a command line, registered now if it is new (named after it): the CLI's
    `evalhub checkup --url … | --command …`, run on EvalHub's own machine."""
    if bool(url) == bool(command):
        raise ValueError("Give either a URL or a command.")
    if command:
        parts = shlex.split(command)
        if not parts:
            raise ValueError("The command is empty.")
        fields: dict[str, Any] = {"transport": McpServer.Transport.STDIO, "command": parts[0], "args": parts[1:]}
        # Installing a package through npx or uvx takes longer than a handshake.
        fields["connect_timeout"] = 120.0
    else:
        fields = {"transport": McpServer.Transport.HTTP, "url": url}
    name = (command or url)[:120]
    server, created = McpServer.objects.get_or_create(name=name, defaults=fields)
    target = " ".join([fields["command"], *fields["args"]]) if command else url
    if not created and server.target != target:
        raise ValueError(f"A server named {name!r} already exists with another target; check it up with --server.")
    return server
