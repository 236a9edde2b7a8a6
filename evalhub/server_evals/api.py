"""/api/v1: a server's shipped evals (list, import and re-sync, the side-effect acknowledgment) and direct tool
tests (`POST /tools/test`, as in reference 003)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.responses import Status

from evalhub import background
from evalhub.api.common import WRITE, ApiError, ErrorCode, acting_user, get_or_404, invalid, responses
from evalhub.api_keys.auth import auth_for
from evalhub.providers.models import Provider
from evalhub.server_evals import services
from evalhub.server_evals.tool_test import tool_test_in_background, tool_test_state
from evalhub.servers.models import McpServer
from evalhub.servers.schemas import InspectParams

servers_router = Router()
tools_router = Router()


class ShippedEvalsOut(Schema):
    capability: dict[str, Any] | None = Field(description="The server's `evals` capability, e.g. {listChanged}.")
    evals: list[dict[str, Any]] = Field(description="Each eval as the server sent it, plus `scenario_id` (or null).")
    removed_upstream: list[dict[str, Any]] = Field(
        description="Scenarios whose eval is not among those kept: removed upstream, or with `beyond_cap` maybe "
        "shipped past EVALHUB_SHIPPED_EVALS_MAX."
    )
    invalid: list[dict[str, Any]] = Field(
        description="Evals that break the proposal or exceed EVALHUB_SHIPPED_EVAL_MAX_BYTES: id, position, reason."
    )
    total: int = Field(description="How many evals are kept (at most EVALHUB_SHIPPED_EVALS_MAX); `evals` is a page.")
    capped: str | None = Field(description='What the inspection left out, e.g. "The server ships 100,000 evals; …".')
    error: str | None = Field(description="Why listing failed, when it did (the rest of the inspection stands).")
    changed_at: str | None = Field(description="When a connection saw notifications/evals/list_changed.")
    side_effects_acknowledged_at: str | None


class SyncIn(Schema):
    import_ids: list[str] | None = Field(
        None, description="Evals to import; [] only updates linked scenarios; null (default) imports all."
    )
    model: str = Field("", max_length=200, description="Model for new scenarios (default: the offline model).")
    provider_id: int | None = Field(None, description="Its provider (needed with `model`).")


class SyncOut(Schema):
    added: list[str]
    changed: list[str]
    removed: list[str]
    unchanged: list[str]
    not_imported: list[str] = Field(description="Valid evals the server ships that no scenario is linked to.")
    not_applied: list[dict[str, Any]] = Field(
        description="Changes upstream left out because the linked scenario or its judge is another user's: "
        'id and reason, e.g. "changed upstream, not applied: owned by alice".'
    )
    invalid: list[dict[str, Any]]
    summary: str


class ToolTestIn(Schema):
    server_id: int
    tool: str = Field(max_length=200)
    arguments: dict[str, Any] = Field(default_factory=dict)


class ToolTestOut(Schema):
    tool: str
    arguments: dict[str, Any]
    result: dict[str, Any] = Field(
        description="The CallToolResult: content, structuredContent, isError; cut like a run's tool result."
    )
    truncated: dict[str, Any] | None = Field(
        description='When the result was over the cap: {"result": {"bytes": full size, "sha256": of the full result}}.'
    )
    is_error: bool
    duration_ms: int
    schema_validation: dict[str, Any] | None = Field(description="structuredContent against the outputSchema.")


class ShippedEvalsPage(Schema):
    offset: int = Field(0, ge=0, le=1_000_000_000, description="Evals to skip.")
    limit: int | None = Field(None, ge=1, le=1_000_000, description="Evals to return (default: every one kept).")


@servers_router.get("/{int:server_id}/evals", response=responses({200: ShippedEvalsOut}, 404), summary="Shipped evals")
def list_shipped_evals(request: HttpRequest, server_id: int, page: Query[ShippedEvalsPage]) -> dict[str, Any]:
    """The evals the server shipped at its latest inspection (evals/list), each with the scenario linked to it;
    at most EVALHUB_SHIPPED_EVALS_MAX are kept (`capped` says what was left out), paged by `offset` and `limit`."""
    server = get_or_404(McpServer.objects.all(), "Server", server_id)
    return _shipped_out(server, page)


def _shipped_out(server: McpServer, page: ShippedEvalsPage) -> dict[str, Any]:
    inspection = server.last_inspection or {}
    kept = server.shipped_evals.all()
    end = None if page.limit is None else page.offset + page.limit
    return {
        "capability": (inspection.get("capabilities") or {}).get("evals"),
        "evals": [
            {**row["eval"], "scenario_id": row["scenario"].pk if row["scenario"] else None}
            for row in services.shipped_rows(server, kept[page.offset : end])
        ],
        "removed_upstream": [
            {
                "eval_id": row["scenario"].shipped_eval_id,
                "scenario_id": row["scenario"].pk,
                "beyond_cap": row["beyond_cap"],
            }
            for row in services.removed_rows(server)
        ],
        "total": kept.count(),
        "capped": services.shipped_cap(server) or None,
        "invalid": inspection.get("invalid_evals") or [],
        "error": inspection.get("evals_error"),
        "changed_at": server.evals_changed_at.isoformat() if server.evals_changed_at else None,
        "side_effects_acknowledged_at": (
            server.side_effects_acknowledged_at.isoformat() if server.side_effects_acknowledged_at else None
        ),
    }


@servers_router.post(
    "/{int:server_id}/evals/sync",
    response=responses({200: SyncOut}, 404, 409),
    auth=auth_for(WRITE),
    summary="Import and re-sync shipped evals",
)
def sync_shipped_evals(request: HttpRequest, server_id: int, payload: SyncIn) -> dict[str, Any]:
    """Import `import_ids` (all when null) from the latest inspection and update every linked scenario; inspect
    the server first (POST /servers/{id}/inspect) to read its current list."""
    server = get_or_404(McpServer.objects.all(), "Server", server_id)
    target: dict[str, Any] = {}
    if payload.model:
        provider = Provider.objects.filter(pk=payload.provider_id).first() if payload.provider_id else None
        if provider is None or payload.model not in provider.model_names:
            raise invalid("Give `provider_id` and a `model` that provider serves.", fields=["provider_id", "model"])
        target = {"provider": provider, "model": payload.model}
    try:
        report = services.shipped_evals_sync(
            server=server, user=acting_user(request), import_ids=payload.import_ids, **target
        )
    except services.NotInspected as exc:
        raise ApiError(ErrorCode.CONFLICT, str(exc)) from None
    except ValueError as exc:
        raise invalid(str(exc), field="import_ids") from None
    return {**report.to_dict(), "summary": report.summary()}


@servers_router.post(
    "/{int:server_id}/side-effects/acknowledge",
    response=responses({200: ShippedEvalsOut}, 403, 404),
    auth=auth_for(WRITE),
    summary="Allow execution evals",
)
def acknowledge_side_effects(request: HttpRequest, server_id: int) -> dict[str, Any]:
    """Accept that execution-level evals and tool tests call this server's tools for real; recorded with who and
    when. Only whoever may change the server (its creator, or staff) may: 403 for anyone else."""
    server = get_or_404(McpServer.objects.all(), "Server", server_id)
    services.side_effects_acknowledge(server=server, user=acting_user(request))
    return _shipped_out(server, ShippedEvalsPage(offset=0, limit=None))


class ToolTestRunningOut(Schema):
    id: str = Field(description="Poll GET /tools/test/{id} with it.")
    status: str = Field(examples=["running"])
    tool: str
    message: str


@tools_router.post(
    "/test",
    response=responses({200: ToolTestOut, 202: ToolTestRunningOut}, 400, 404, 409, 422),
    auth=auth_for(WRITE),
    summary="Call a tool",
)
def test_tool(request: HttpRequest, payload: ToolTestIn, params: Query[InspectParams]) -> Status:
    """Call one tool of a server directly, now, with `arguments`: its result, duration, isError and the
    validation of its structuredContent. The tool runs for real: one that looks destructive (destructiveHint, or a
    name like delete_*, book_*, send_*) answers 409 until the server's owner or staff acknowledged side effects.
    422 SERVER_UNREACHABLE when the server cannot be reached; a tool that fails answers 200 with `is_error`.

    The call runs in the background, like an inspection; the request waits for it at most `wait` seconds
    (default EVALHUB_WEB_WAIT_SECONDS, at most 30), then answers 202 with an `id` to poll GET /tools/test/{id}.
    429 RATE_LIMIT_EXCEEDED when the caller already has their share of background calls running."""
    server = get_or_404(McpServer.objects.all(), "Server", payload.server_id)
    wait = settings.EVALHUB_WEB_WAIT_SECONDS if params.wait is None else params.wait
    try:
        state = tool_test_in_background(
            server=server, tool=payload.tool, arguments=payload.arguments, user=acting_user(request), wait=wait
        )
    except background.Busy as exc:
        raise ApiError(ErrorCode.RATE_LIMIT_EXCEEDED, str(exc)) from None
    return _answer(state)


@tools_router.get(
    "/test/{test_id}",
    response=responses({200: ToolTestOut, 202: ToolTestRunningOut}, 400, 404, 409, 422),
    summary="A tool test's outcome",
)
def get_tool_test(request: HttpRequest, test_id: str) -> Status:
    """The outcome of a test POST /tools/test answered 202 for, as that would have answered; 202 while it runs.
    404 for an id that is unknown, expired (an hour after the call ended) or another user's."""
    state = tool_test_state(test_id=test_id, user=acting_user(request))
    if state is None:
        raise ApiError(
            ErrorCode.RESOURCE_NOT_FOUND,
            f"No tool test {test_id!r} of yours: it is unknown or expired. Call the tool again.",
            {"resource": "Tool test", "id": test_id},
        )
    return _answer(state)


def _answer(state: dict[str, Any]) -> Status:
    if state["status"] == "running":
        message = f"Still calling {state['tool']}; poll GET /api/v1/tools/test/{state['id']}."
        return Status(202, {**state, "message": message})
    if state["status"] == "failed":
        if state["kind"] == "unknown_tool":
            raise invalid(state["message"], field="tool")
        if state["kind"] == "side_effects":
            raise ApiError(ErrorCode.CONFLICT, state["message"], state["details"])
        details = {"kind": state["kind"], "stderr_tail": state["stderr_tail"]}
        raise ApiError(ErrorCode.SERVER_UNREACHABLE, state["message"], details)
    return Status(200, state["tested"])
