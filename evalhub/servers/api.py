"""/servers: the MCP servers scenarios run against. Secrets go in, and only their names ever come out."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from django.http import HttpRequest
from ninja import Query, Router
from ninja.responses import Status

from evalhub import background
from evalhub.api.common import (
    ADMIN,
    WRITE,
    ApiError,
    ErrorCode,
    Page,
    PageParams,
    acting_user,
    form_errors,
    get_or_404,
    invalid,
    paginate,
    patched,
    principal,
    require_admin,
    responses,
)
from evalhub.api_keys.auth import auth_for
from evalhub.mcp_client.config import ALWAYS_SECRET_HEADERS
from evalhub.permissions import require_change
from evalhub.servers import http_settings
from evalhub.servers.forms import ServerForm
from evalhub.servers.models import McpServer
from evalhub.servers.schemas import (
    InspectionOut,
    InspectionPendingOut,
    InspectParams,
    ServerFilters,
    ServerIn,
    ServerOut,
    ServerPatch,
)
from evalhub.servers.services import ServerInUse, server_delete, server_inspect_in_background
from evalhub.vault import SecretUnavailable

router = Router()
REDACTED = "••••"


def server_out(server: McpServer) -> dict[str, Any]:
    snapshot = server.latest_snapshot()
    return {
        "id": server.pk,
        "name": server.name,
        "description": server.description,
        "transport": server.transport,
        "command": server.command,
        "args": [str(arg) for arg in server.args],
        "cwd": server.cwd,
        "env": {str(k): str(v) for k, v in server.env.items()},
        "url": server.url,
        # Plain headers are not secret by design, but a credential typed there is still never echoed back.
        "headers": {
            str(k): REDACTED if k.lower() in ALWAYS_SECRET_HEADERS else str(v) for k, v in server.headers.items()
        },
        "secret_names": _secret_names(server),
        "protocol_mode": server.protocol_mode,
        "connect_timeout": server.connect_timeout,
        "request_timeout": server.request_timeout,
        "warm_reuse": server.warm_reuse,
        "warm_recycle_after": server.warm_recycle_after,
        **{name: getattr(server, name) for name in http_settings.FIELDS},
        "tool_names": snapshot.tool_names if snapshot else [],
        "tools_hash": snapshot.tools_hash if snapshot else None,
        "last_inspected_at": server.last_inspected_at,
        "last_error": server.last_error,
        "inspection_status": server.inspection_state(),
        "inspecting_since": server.inspecting_since,
        "created_at": server.created_at,
        "updated_at": server.updated_at,
    }


def _secret_names(server: McpServer) -> list[str]:
    try:
        return server.secret_names()
    except SecretUnavailable:  # Undecryptable after a key change: say so rather than fail the whole listing.
        return ["(unreadable: enter the secrets again)"]


def _get(server_id: int) -> McpServer:
    return get_or_404(McpServer.objects.all(), "Server", server_id)


# API field → ServerForm field, to put the form's errors where the client's fields are.
FORM_FIELDS = {
    "args_text": "args",
    "env_text": "env",
    "headers_text": "headers",
    "secret_env_text": "secret_env",
    "secret_headers_text": "secret_headers",
}


def _lines(values: dict[str, str], separator: str, field: str) -> str:
    for name, value in values.items():
        if "\n" in name or "\n" in value or "\r" in name or "\r" in value:
            raise invalid(f"{field}: names and values are single lines.", field=field)
    return "\n".join(f"{name}{separator}{value}" for name, value in values.items())


def _save(server: McpServer | None, values: dict[str, Any], request: HttpRequest) -> McpServer:
    """Validate and save through the ServerForm the Servers page uses, so both accept exactly the same servers.

    `values` holds the API's fields; secrets (bearer_token, secret_env, secret_headers) only when the client sent
    them: a dict replaces the whole set, "" / {} clears it, and an absent one stays as stored.
    """
    if any("\n" in arg or "\r" in arg for arg in values["args"]):
        raise invalid("args: each argument is a single line.", field="args")
    data: dict[str, Any] = {
        "name": values["name"],
        "description": values["description"],
        "transport": values["transport"],
        "command": values["command"],
        "args_text": "\n".join(values["args"]),
        "cwd": values["cwd"],
        "env_text": _lines(values["env"], "=", "env"),
        "url": values["url"],
        "headers_text": _lines(values["headers"], ": ", "headers"),
        "protocol_mode": values["protocol_mode"],
        "connect_timeout": values["connect_timeout"],
        "request_timeout": values["request_timeout"],
        "warm_reuse": values["warm_reuse"],
        "warm_recycle_after": values["warm_recycle_after"],
        **{name: values[name] for name in http_settings.FIELDS},
        "secret_env_text": _lines(values.get("secret_env") or {}, "=", "secret_env"),
        "secret_headers_text": _lines(values.get("secret_headers") or {}, ": ", "secret_headers"),
        "bearer_token": values.get("bearer_token") or "",
    }
    is_admin = ADMIN in principal(request).scopes and bool(getattr(principal(request).user, "is_staff", False))
    if server is not None:
        # Stored secrets the client replaced (a new dict) or cleared are removed from the form's stored rows.
        stored_rows = ServerForm(instance=server, is_staff=is_admin)._rows
        for kind, field in (("env", "secret_env"), ("headers", "secret_headers")):
            if field in values:
                data.update({clear: "on" for _, _, clear in stored_rows[kind]})
        if values.get("bearer_token") == "":
            data["clear_bearer_token"] = "on"  # noqa: S105 (a checkbox, not a password)
    user_is_staff = bool(getattr(principal(request).user, "is_staff", False))
    form = ServerForm(data, instance=server, is_staff=is_admin, user_is_staff=user_is_staff)
    if not form.is_valid():
        raise form_errors(form, FORM_FIELDS)
    saved = form.save(commit=False)
    if server is None:
        user = acting_user(request)
        saved.created_by = user if user.is_authenticated else None  # type: ignore[assignment]
    saved.save()
    return saved


def _refuse_warm_http(sent: dict[str, Any]) -> None:
    # The form quietly drops a box left ticked on a transport it hides; a client that asks for it is told.
    if sent.get("warm_reuse") and sent.get("transport") != McpServer.Transport.STDIO:
        raise invalid(
            "warm_reuse: only a stdio server's processes can be kept warm; an HTTP or SSE server is reached afresh "
            "by every run. Leave warm_reuse out or false.",
            field="warm_reuse",
        )


def _current(server: McpServer) -> dict[str, Any]:
    return {
        "name": server.name,
        "description": server.description,
        "transport": server.transport,
        "command": server.command,
        "args": list(server.args),
        "cwd": server.cwd,
        "env": dict(server.env),
        "url": server.url,
        "headers": dict(server.headers),
        "protocol_mode": server.protocol_mode,
        "connect_timeout": server.connect_timeout,
        "request_timeout": server.request_timeout,
        "warm_reuse": server.warm_reuse,
        "warm_recycle_after": server.warm_recycle_after,
        **{name: getattr(server, name) for name in http_settings.FIELDS},
    }


@router.get("", response=responses({200: Page[ServerOut]}), summary="List servers")
def list_servers(request: HttpRequest, filters: Query[ServerFilters], page: Query[PageParams]) -> dict[str, Any]:
    servers = McpServer.objects.all()
    if filters.transport:
        servers = servers.filter(transport=filters.transport)
    if filters.q:
        servers = servers.filter(name__icontains=filters.q)
    return paginate(servers.order_by("name", "pk"), page, out=server_out)


@router.post("", response=responses({201: ServerOut}), auth=auth_for(WRITE), summary="Register a server")
def create_server(request: HttpRequest, payload: ServerIn) -> Status:
    """stdio servers (a command EvalHub starts on this machine) need a staff account and evaluate:admin."""
    if payload.transport == McpServer.Transport.STDIO:
        require_admin(request, "Registering a stdio server")
    _refuse_warm_http(payload.dict())
    server = _save(None, payload.dict(), request)
    return Status(201, server_out(server))


@router.get("/{int:server_id}", response=responses({200: ServerOut}, 404), summary="Get a server")
def get_server(request: HttpRequest, server_id: int) -> dict[str, Any]:
    return server_out(_get(server_id))


@router.patch(
    "/{int:server_id}", response=responses({200: ServerOut}, 404), auth=auth_for(WRITE), summary="Update a server"
)
def update_server(request: HttpRequest, server_id: int, payload: ServerPatch) -> dict[str, Any]:
    """Its creator or staff only; a stdio server, staff with evaluate:admin only."""
    server = _get(server_id)
    require_change(acting_user(request), server)
    data = payload.dict(exclude_unset=True)
    if server.is_stdio or data.get("transport") == McpServer.Transport.STDIO:
        require_admin(request, "Changing a stdio server")
    # null means "unchanged" for every field, secrets included (`patched` leaves them out of `values`), except
    # the HTTP timeout, where null is its "no limit" value.
    values = patched(_current(server), data, nullable=("http_timeout",))
    _refuse_warm_http({"warm_reuse": data.get("warm_reuse"), "transport": values["transport"]})
    with transaction.atomic():
        server = _save(server, values, request)
    return server_out(server)


@router.delete(
    "/{int:server_id}", response=responses({204: None}, 404, 409), auth=auth_for(WRITE), summary="Delete a server"
)
def delete_server(request: HttpRequest, server_id: int) -> Status:
    """Its creator or staff only (a stdio server: staff only). Refused with 409 CONFLICT while scenarios use it."""
    server = _get(server_id)
    require_change(acting_user(request), server)
    try:
        server_delete(server=server)
    except ServerInUse as exc:
        names = [scenario.name for scenario in exc.scenarios]
        raise ApiError(ErrorCode.CONFLICT, str(exc), {"scenarios": names}) from None
    return Status(204, None)


@router.post(
    "/{int:server_id}/inspect",
    response=responses({200: InspectionOut, 202: InspectionPendingOut}, 404, 422),
    auth=auth_for(WRITE),
    summary="Inspect a server now",
)
def inspect_server(request: HttpRequest, server_id: int, params: Query[InspectParams]) -> Status:
    """Connect, list its tools, resources and prompts, and keep the tools as a snapshot.

    The inspection runs in the background; the request waits for it at most `wait` seconds (default
    EVALHUB_WEB_WAIT_SECONDS, at most 30). 200: the inspection. 422 SERVER_UNREACHABLE: the server could not be
    reached, with `details.kind` (e.g. connect_timeout, command_not_found, auth_failed,
    address_refused when its URL resolves to an address EvalHub does not connect to) and the tail of its
    stderr. 202: still inspecting (or already was); poll `GET /servers/{id}` until `inspection_status` is "idle",
    then read `tool_names` and `last_error`. 429 when too many inspections are running already.
    """
    server = _get(server_id)
    wait = settings.EVALHUB_WEB_WAIT_SECONDS if params.wait is None else params.wait
    try:
        inspection = server_inspect_in_background(server=server, wait=wait, user=acting_user(request))
    except background.Busy as exc:
        raise ApiError(ErrorCode.RATE_LIMIT_EXCEEDED, str(exc)) from None
    if inspection is None:
        return Status(
            202,
            {
                "status": "inspecting",
                "started_at": server.inspecting_since,
                "ends_by": server.inspecting_until,
                "message": f"Still inspecting {server.name}; poll GET /api/v1/servers/{server.pk} until its "
                "inspection_status is idle.",
            },
        )
    data = inspection.to_dict()
    return Status(200, {name: data[name] for name in InspectionOut.model_fields})
