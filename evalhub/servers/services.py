"""Server services that views and the API share: inspection (connect, list, snapshot) and deletion."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from evalhub.mcp_client.errors import McpConnectionError
from evalhub.mcp_client.inspection import Inspection, inspect_server
from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from evalhub.vault import SecretUnavailable


def server_inspect(*, server: McpServer) -> Inspection:
    """Connect and list everything the server offers; keep its tools as a snapshot.

    A failure is stored on the server too (so the Servers page can show it) and re-raised for the caller.
    """
    now = timezone.now()
    try:
        inspection = inspect_server(server.to_config())
    except (McpConnectionError, SecretUnavailable) as exc:
        server.last_error = {
            "kind": str(getattr(exc, "kind", "secret_unavailable")),
            "message": getattr(exc, "message", str(exc)),
            "stderr_tail": getattr(exc, "stderr_tail", ""),
            "at": now.isoformat(),
        }
        server.save(update_fields=["last_error"])
        raise
    server.record_tools([dict(tool) for tool in inspection.tools])
    details = inspection.to_dict()
    del details["tools"]  # kept in the ToolSnapshot
    server.last_inspection = details
    server.last_inspected_at = now
    server.last_error = None
    server.save(update_fields=["last_inspection", "last_inspected_at", "last_error"])
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
