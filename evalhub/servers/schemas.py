"""The /servers API's schemas: what a server looks like going in and coming out (secrets only by name)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from ninja import Field, Schema

from evalhub.mcp_client.config import DEFAULT_MAX_REDIRECTS, MAX_HTTP_TIMEOUT, MAX_REDIRECTS_LIMIT
from evalhub.mcp_client.warm_pool import DEFAULT_RECYCLE_AFTER, MAX_RECYCLE_AFTER
from evalhub.servers.http_settings import HELP_TEXTS

TransportName = Literal["stdio", "http", "sse"]
InspectionStatus = Literal["idle", "inspecting", "interrupted"]
MAX_INSPECT_WAIT = 30
ProtocolMode = Literal["auto", "legacy"]
TlsMinVersion = Literal["", "1.2", "1.3"]
HTTP_ONLY = " Streamable HTTP and SSE only; ignored (kept at its default) for stdio."
WARM_REUSE = (
    "stdio only. Runs are lent already-started server processes, one run at a time, instead of starting one each. "
    "Only for stateless servers: what a run leaves in the process is there for the next run it serves. No verdict "
    "rule changes; after any error, a time limit or a cancelled run the process is closed and the next run gets a "
    "fresh one."
)
RECYCLE_AFTER = "stdio with warm_reuse: a process serves at most this many runs, then a fresh one starts."


class ServerOut(Schema):
    id: int
    name: str
    description: str
    transport: str
    command: str
    args: list[str]
    cwd: str
    env: dict[str, str] = Field(description="Plain environment variables; secret ones are listed in secret_names.")
    url: str
    headers: dict[str, str] = Field(description="Plain headers; secret ones are listed in secret_names.")
    secret_names: list[str] = Field(description="Which secrets are set (e.g. 'Bearer token', 'env API_KEY').")
    protocol_mode: str
    connect_timeout: float
    request_timeout: float
    warm_reuse: bool = Field(description=WARM_REUSE)
    warm_recycle_after: int = Field(description=RECYCLE_AFTER)
    http_timeout: float | None = Field(description=HELP_TEXTS["http_timeout"] + HTTP_ONLY)
    max_redirects: int = Field(description=HELP_TEXTS["max_redirects"] + HTTP_ONLY)
    user_agent_override: str = Field(description=HELP_TEXTS["user_agent_override"] + HTTP_ONLY)
    tls_insecure_skip_verify: bool = Field(description=HELP_TEXTS["tls_insecure_skip_verify"] + HTTP_ONLY)
    tls_ca_bundle_path: str = Field(description=HELP_TEXTS["tls_ca_bundle_path"] + HTTP_ONLY)
    tls_min_version: TlsMinVersion = Field(description='"" (the default, TLS 1.2), "1.2" or "1.3".' + HTTP_ONLY)
    tool_names: list[str] = Field(description="Tools the latest inspection saw.")
    tools_hash: str | None
    last_inspected_at: datetime | None
    last_error: dict[str, Any] | None
    inspection_status: InspectionStatus = Field(
        description="idle; inspecting (started at inspecting_since, in the background); interrupted (EvalHub's "
        "web process stopped during it: inspect again)."
    )
    inspecting_since: datetime | None
    created_at: datetime
    updated_at: datetime


class ServerIn(Schema):
    name: str = Field(min_length=1, max_length=120)
    description: str = ""
    transport: TransportName = "http"
    command: str = Field("", max_length=1000)
    args: list[str] = []
    cwd: str = Field("", max_length=1000)
    env: dict[str, str] = {}
    url: str = Field(
        "",
        max_length=2000,
        description="http:// or https://. Link-local and cloud metadata addresses are refused; loopback and "
        "private-network ones need a staff account unless the operator set EVALHUB_ALLOW_PRIVATE_URLS.",
    )
    headers: dict[str, str] = {}
    bearer_token: str = Field(
        "",
        description="Write-only. Staff may give `${VAR}` instead: an environment variable an operator allowed in "
        "EVALHUB_SECRET_ENV_ALLOWLIST.",
    )
    secret_headers: dict[str, str] = Field({}, description="Write-only headers, e.g. X-Api-Key.")
    secret_env: dict[str, str] = Field({}, description="Write-only environment variables (stdio).")
    protocol_mode: ProtocolMode = "auto"
    connect_timeout: float = Field(30.0, gt=0, le=600)
    request_timeout: float = Field(60.0, gt=0, le=3600)
    warm_reuse: bool = Field(False, description=WARM_REUSE)
    warm_recycle_after: int = Field(DEFAULT_RECYCLE_AFTER, ge=1, le=MAX_RECYCLE_AFTER, description=RECYCLE_AFTER)
    http_timeout: float | None = Field(None, gt=0, le=MAX_HTTP_TIMEOUT, description=HELP_TEXTS["http_timeout"])
    max_redirects: int = Field(
        DEFAULT_MAX_REDIRECTS, ge=0, le=MAX_REDIRECTS_LIMIT, description=HELP_TEXTS["max_redirects"]
    )
    user_agent_override: str = Field("", max_length=200, description=HELP_TEXTS["user_agent_override"])
    tls_insecure_skip_verify: bool = Field(False, description=HELP_TEXTS["tls_insecure_skip_verify"])
    tls_ca_bundle_path: str = Field("", max_length=1000, description=HELP_TEXTS["tls_ca_bundle_path"])
    tls_min_version: TlsMinVersion = ""


class ServerPatch(Schema):
    """Only the fields sent change. Secrets: omit to keep, send a value to replace, send "" / {} to clear.

    A `url` with another scheme, host or port drops the stored bearer token, secret headers and secret
    environment variables (they were given for the old address) unless the same request sends them again.
    """

    name: str | None = Field(None, min_length=1, max_length=120)
    description: str | None = None
    transport: TransportName | None = None
    command: str | None = Field(None, max_length=1000)
    args: list[str] | None = None
    cwd: str | None = Field(None, max_length=1000)
    env: dict[str, str] | None = None
    url: str | None = Field(
        None,
        max_length=2000,
        description="A new scheme, host or port drops the stored secrets unless this request sends them again.",
    )
    headers: dict[str, str] | None = None
    bearer_token: str | None = None
    secret_headers: dict[str, str] | None = None
    secret_env: dict[str, str] | None = None
    protocol_mode: ProtocolMode | None = None
    connect_timeout: float | None = Field(None, gt=0, le=600)
    request_timeout: float | None = Field(None, gt=0, le=3600)
    warm_reuse: bool | None = None
    warm_recycle_after: int | None = Field(None, ge=1, le=MAX_RECYCLE_AFTER)
    http_timeout: float | None = Field(None, gt=0, le=MAX_HTTP_TIMEOUT, description="null removes it (no limit).")
    max_redirects: int | None = Field(None, ge=0, le=MAX_REDIRECTS_LIMIT)
    user_agent_override: str | None = Field(None, max_length=200)
    tls_insecure_skip_verify: bool | None = None
    tls_ca_bundle_path: str | None = Field(None, max_length=1000)
    tls_min_version: TlsMinVersion | None = None


class ServerFilters(Schema):
    transport: TransportName | None = None
    q: str | None = Field(None, max_length=200, description="Part of the name.")


class InspectionOut(Schema):
    server_name: str
    server_version: str
    protocol_version: str
    tools: list[dict[str, Any]]
    invalid_tools: list[dict[str, Any]] = Field(
        description="Tools the server listed that are not valid MCP ({name, position, reason}): left out of "
        "`tools` and never offered to a model."
    )
    resources: list[dict[str, Any]]
    resource_templates: list[dict[str, Any]]
    prompts: list[dict[str, Any]]
    tools_hash: str
    warnings: list[str]
    duration_ms: int


class InspectionPendingOut(Schema):
    status: Literal["inspecting"]
    started_at: datetime
    ends_by: datetime = Field(description="The inspection has ended (successfully or not) by then.")
    message: str


class InspectParams(Schema):
    wait: int | None = Field(
        None,
        ge=0,
        le=MAX_INSPECT_WAIT,
        description="Seconds to wait for the result before answering 202 (default: EVALHUB_WEB_WAIT_SECONDS).",
    )
