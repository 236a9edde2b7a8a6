"""Server services that views and the API share: inspection (connect, list, snapshot), in the background or not,
and deletion."""

from __future__ import annotations

from contextlib import suppress
from dataclasses import replace
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from evalhub import background
from evalhub.mcp_client import server_evals
from evalhub.mcp_client.errors import McpConnectionError
from evalhub.mcp_client.inspection import Inspection, inspect_server
from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from evalhub.vault import SecretUnavailable

# How long past its own budget (the connect timeout) an inspection counts as running: stopping a stdio server and
# recording the outcome take a moment too.
INSPECTION_GRACE_SECONDS = 10.0


def server_inspect(*, server: McpServer) -> Inspection:
    """Connect and list everything the server offers, now, in this thread; keep its tools as a snapshot.

    A failure is stored on the server too (so the Servers page can show it) and re-raised for the caller. Raises
    background.Busy, before starting anything, when this web process runs its limit of stdio servers already.
    """
    started = timezone.now()
    try:
        with background.stdio_place(server.is_stdio):
            outcome: background.Outcome[Inspection] = background.Outcome(value=inspect_server(server.to_config()))
    except (McpConnectionError, SecretUnavailable) as exc:
        outcome = background.Outcome(error=exc)
    return _record(server, outcome, started)


def server_inspect_in_background(
    *, server: McpServer, wait: float, user: AbstractBaseUser | AnonymousUser
) -> Inspection | None:
    """Inspect on the web process's background pool and wait at most `wait` seconds for it.

    Returns the inspection when it ended in time, raises its McpConnectionError (or SecretUnavailable) when it
    failed in time (both recorded like `server_inspect`), and returns None while it goes on: the pool thread
    records it then, and `server.inspection_state()` says "inspecting" until it does. An inspection already
    running for this server is not started twice (None too). Raises background.Busy when the pool, or `user`'s
    share of it, is full.
    """
    started = timezone.now()
    try:
        config = server.to_config()
    except SecretUnavailable as exc:
        return _record(server, background.Outcome(error=exc), started)
    until = started + timedelta(seconds=config.connect_timeout + INSPECTION_GRACE_SECONDS)
    # Claim it atomically: two clicks, or two web processes, must not inspect the same server at once.
    free = Q(inspecting_until__isnull=True) | Q(inspecting_until__lte=started)
    if not McpServer.objects.filter(free, pk=server.pk).update(inspecting_since=started, inspecting_until=until):
        server.refresh_from_db()
        return None
    server.inspecting_since, server.inspecting_until = started, until
    server_id = server.pk

    def record_late(outcome: background.Outcome[Inspection]) -> None:
        current = McpServer.objects.filter(pk=server_id).first()
        if current is not None:  # deleted while it was being inspected: nothing to record
            with suppress(McpConnectionError, SecretUnavailable):
                _record(current, outcome, started)

    try:
        outcome = background.run_bounded(
            lambda: inspect_server(config), wait=wait, late=record_late, owner=user.pk, stdio=server.is_stdio
        )
    except background.Busy:
        McpServer.objects.filter(pk=server_id).update(inspecting_since=None, inspecting_until=None)
        raise
    return None if outcome is None else _record(server, outcome, started)


def _record(server: McpServer, outcome: background.Outcome[Inspection], started: datetime) -> Inspection:
    """Store an inspection's outcome on the server (and its tools as a snapshot); return it or raise its error."""
    server.inspecting_since = server.inspecting_until = None
    busy = ["inspecting_since", "inspecting_until"]
    try:
        inspection = outcome.get()
    except (McpConnectionError, SecretUnavailable) as exc:
        server.last_error = {
            "kind": str(getattr(exc, "kind", "secret_unavailable")),
            "message": getattr(exc, "message", str(exc)),
            "stderr_tail": getattr(exc, "stderr_tail", ""),
            "at": started.isoformat(),
        }
        server.save(update_fields=["last_error", *busy])
        raise
    found, cap = server_evals.capped(
        {"evals": inspection.evals, "invalid": inspection.invalid_evals},
        max_evals=settings.EVALHUB_SHIPPED_EVALS_MAX,
        max_bytes=settings.EVALHUB_SHIPPED_EVAL_MAX_BYTES,
    )
    # Tools are kept in a ToolSnapshot and evals in ShippedEval rows, not in the server's row.
    details = replace(inspection, tools=[], evals=[], invalid_evals=[]).to_dict()
    del details["tools"], details["evals"]
    server.last_inspection = {**details, "invalid_evals": found["invalid"], "evals_cap": cap}
    server.last_inspected_at = started
    server.last_error = None
    # A list_changed seen before this inspection started is answered by the list it just read.
    if server.evals_changed_at is not None and server.evals_changed_at <= started:
        server.evals_changed_at = None
    with transaction.atomic():
        server.record_tools([dict(tool) for tool in inspection.tools])
        server.record_evals(found["evals"])
        server.save(update_fields=["last_inspection", "last_inspected_at", "last_error", "evals_changed_at", *busy])
    return inspection


class ServerInUse(Exception):
    """A server that scenarios use cannot be deleted; `scenarios` are those scenarios, by name."""

    def __init__(self, server: McpServer, scenarios: list[Scenario]) -> None:
        self.scenarios = scenarios
        names = ", ".join(f"“{scenario.name}”" for scenario in scenarios)
        super().__init__(
            f"{server.name} is used by {len(scenarios)} scenario{'s' if len(scenarios) != 1 else ''} ({names}): "
            "point them at another server or delete them first."
        )


def server_delete(*, server: McpServer) -> None:
    """Delete a server and its tool snapshots; past runs keep their results. Raises ServerInUse."""
    with transaction.atomic():
        scenarios = list(Scenario.objects.filter(server=server).order_by("name"))
        if scenarios:
            raise ServerInUse(server, scenarios)
        server.delete()
