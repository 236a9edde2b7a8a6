"""/config, /quota, /health, /metrics (JSON and Prometheus text) and /providers (read-only: which models exist)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from ninja import Field, Query, Router, Schema
from ninja.responses import Status

from evalhub import __version__
from evalhub.api.common import ErrorOut, Page, PageParams, invalid, paginate, responses
from evalhub.health import health_report
from evalhub.providers.models import Provider, ensure_builtin_providers
from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from evalhub.vault import SecretUnavailable
from runs import record_limits
from runs.metrics import WINDOW_PATTERN, parse_window, prometheus_text, runs_metrics
from runs.quota import quota_status
from runs.reports import FORMATS
from scorers.models import Scorer

router = Router()


class LimitsOut(Schema):
    daily_run_quota: int = Field(description="Runs that may start per UTC day (GET /quota: what is left).")
    api_requests_per_minute: int = Field(description="Per API key and per logged-in user.")
    worker_concurrency: int = Field(description="Runs one worker process carries at once.")
    tool_result_bytes: int = Field(description="Each recorded tool result is cut past this.")
    model_message_bytes: int = Field(description="Each recorded model message is cut past this.")
    run_bytes: int = Field(description="A whole run's record is cut past this.")
    tool_content_to_model_bytes: int = Field(description="What the model reads back of one tool result.")
    shipped_evals_per_server: int
    shipped_eval_bytes: int


class FeaturesOut(Schema):
    scenario_levels: list[str]
    tool_modes: list[str]
    scorer_kinds: list[str]


class ConfigOut(Schema):
    version: str
    limits: LimitsOut
    transports: list[str] = Field(description="How EvalHub reaches an MCP server.")
    report_formats: list[str] = Field(description="The `format` of every report endpoint.")
    features: FeaturesOut


class QuotaOut(Schema):
    used: int
    limit: int
    remaining: int
    resets_at: datetime


class HealthOut(Schema):
    status: str = Field(description='"ok", or "error" when the database or the broker is down (then HTTP 503).')
    version: str
    uptime_seconds: float = Field(description="Seconds since this web process started.")
    checks: dict[str, dict[str, Any]]
    worker: dict[str, Any]


class WindowParams(Schema):
    window: str = Field("24h", pattern=WINDOW_PATTERN, description="How far back: 30m, 24h, 7d …")


class RunCountsOut(Schema):
    total: int
    by_status: dict[str, int]


class CostOut(Schema):
    total: float
    average: float | None
    runs_with_unknown_cost: int


class DurationOut(Schema):
    average: float | None
    p50: float | None
    p95: float | None


class MetricsOut(Schema):
    window: str
    since: datetime
    generated_at: datetime
    runs: RunCountsOut
    replayed_runs: int = Field(
        description="Replays and forks in the window (runs answered from a cassette): left out of every other figure."
    )
    passed: int
    failed: int
    inconclusive: int = Field(description="Runs nothing could decide (an outage, a lost worker, a skipped judge).")
    pass_rate: float | None = Field(description="Passed / (passed + failed): inconclusive runs count neither way.")
    failure_causes: dict[str, int] = Field(description="Runs that did not pass, by whose failure it was.")
    average_score: float | None
    cost_usd: CostOut
    duration_ms: DurationOut


class ProviderOut(Schema):
    id: int
    name: str
    kind: str
    base_url: str
    model_names: list[str]
    secret_names: list[str] = Field(description="Which secrets are set (e.g. 'API key'); never their values.")
    is_builtin: bool


def _window(params: WindowParams) -> str:
    try:
        parse_window(params.window)
    except ValueError as exc:
        raise invalid(str(exc), field="window") from None
    return params.window.strip().lower()


@router.get("/config", response=responses({200: ConfigOut}), summary="This install's version, limits and features")
def get_config(request: HttpRequest) -> dict[str, Any]:
    """Read-only: what a client may send and expect here. Never hosts, URLs or secrets."""
    return {
        "version": __version__,
        "limits": {
            "daily_run_quota": settings.EVALHUB_DAILY_RUN_QUOTA,
            "api_requests_per_minute": settings.EVALHUB_API_RATE_LIMIT,
            "worker_concurrency": settings.EVALHUB_WORKER_CONCURRENCY,
            "tool_result_bytes": record_limits.TOOL_RESULT_BYTES,
            "model_message_bytes": record_limits.MODEL_MESSAGE_BYTES,
            "run_bytes": record_limits.RUN_BYTES,
            "tool_content_to_model_bytes": record_limits.TOOL_CONTENT_TO_MODEL_BYTES,
            "shipped_evals_per_server": settings.EVALHUB_SHIPPED_EVALS_MAX,
            "shipped_eval_bytes": settings.EVALHUB_SHIPPED_EVAL_MAX_BYTES,
        },
        "transports": list(McpServer.Transport.values),
        "report_formats": list(FORMATS),
        "features": {
            "scenario_levels": list(Scenario.Level.values),
            "tool_modes": list(Scenario.ToolMode.values),
            "scorer_kinds": list(Scorer.Kind.values),
        },
    }


@router.get("/quota", response=responses({200: QuotaOut}), summary="Today's run quota")
def get_quota(request: HttpRequest) -> dict[str, Any]:
    status = quota_status()
    return {"used": status.used, "limit": status.limit, "remaining": status.remaining, "resets_at": status.resets_at}


@router.get("/health", response={200: HealthOut, 503: HealthOut, 429: ErrorOut}, auth=None, summary="Health")
def get_health(request: HttpRequest) -> Status:
    """No authentication: database and broker status and when a worker was last seen; never configuration."""
    report = health_report()
    return Status(200 if report["status"] == "ok" else 503, report)


@router.get("/metrics", response=responses({200: MetricsOut}), summary="Run metrics over a window")
def get_metrics(request: HttpRequest, params: Query[WindowParams]) -> dict[str, Any]:
    return runs_metrics(window=_window(params))


@router.get(
    "/metrics/prometheus",
    response=responses({200: str}),
    summary="Run metrics in Prometheus text format",
    openapi_extra={
        "responses": {200: {"description": "OK", "content": {"text/plain": {"schema": {"type": "string"}}}}}
    },
)
def get_metrics_prometheus(request: HttpRequest, params: Query[WindowParams]) -> HttpResponse:
    return HttpResponse(
        prometheus_text(window=_window(params)), content_type="text/plain; version=0.0.4; charset=utf-8"
    )


@router.get("/providers", response=responses({200: Page[ProviderOut]}), summary="List model providers")
def list_providers(request: HttpRequest, page: Query[PageParams]) -> dict[str, Any]:
    """Which models scenarios can use (`provider_id` + `model`). Keys and secret headers are never shown."""
    ensure_builtin_providers()
    return paginate(Provider.objects.order_by("-is_builtin", "name", "pk"), page, out=_provider_out)


def _provider_out(provider: Provider) -> dict[str, Any]:
    return {
        "id": provider.pk,
        "name": provider.name,
        "kind": provider.kind,
        "base_url": provider.base_url,
        "model_names": [str(m) for m in provider.model_names],
        "secret_names": _secret_names(provider),
        "is_builtin": provider.is_builtin,
    }


def _secret_names(provider: Provider) -> list[str]:
    try:
        return provider.secret_names()
    except SecretUnavailable:  # Undecryptable after a key change: say so rather than fail the whole listing.
        return ["(unreadable: enter the secrets again)"]
