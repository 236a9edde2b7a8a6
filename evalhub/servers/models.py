"""MCP servers users register, and the snapshots of their tool lists that runs are recorded against."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone

from evalhub import outbound, vault
from evalhub.mcp_client.config import DEFAULT_MAX_REDIRECTS, MAX_REDIRECTS_LIMIT, ServerConfig
from evalhub.mcp_client.snapshot import tools_hash
from evalhub.mcp_client.warm_pool import DEFAULT_RECYCLE_AFTER, MAX_RECYCLE_AFTER


class McpServer(models.Model):
    class Transport(models.TextChoices):
        STDIO = "stdio", "stdio (a command EvalHub starts)"
        HTTP = "http", "Streamable HTTP"
        SSE = "sse", "SSE (legacy HTTP)"

    name = models.CharField(max_length=120, unique=True)
    description = models.TextField(blank=True)
    transport = models.CharField(max_length=10, choices=Transport.choices, default=Transport.HTTP)
    command = models.CharField(max_length=1000, blank=True)
    args = models.JSONField(default=list, blank=True, help_text="Arguments, one list item each; never a shell.")
    cwd = models.CharField("working directory", max_length=1000, blank=True)
    env = models.JSONField("environment", default=dict, blank=True)
    url = models.URLField(max_length=2000, blank=True)
    headers = models.JSONField(default=dict, blank=True)
    # Bearer token, secret headers and secret env vars, sealed together (see evalhub.vault); never shown again.
    sealed_secrets = models.TextField(blank=True, editable=False)
    # "legacy" skips the SDK's 2026 protocol probe, for old servers that never answer unknown requests.
    protocol_mode = models.CharField(
        max_length=10, choices=[("auto", "Automatic"), ("legacy", "Legacy handshake only")], default="auto"
    )
    connect_timeout = models.FloatField(default=30.0)
    request_timeout = models.FloatField(default=60.0)
    # Streamable HTTP / SSE only (mcptest's server.http block); what each does: ServerConfig's docstring.
    http_timeout = models.FloatField("HTTP timeout (seconds)", null=True, blank=True)
    max_redirects = models.PositiveSmallIntegerField(
        "max redirects", default=DEFAULT_MAX_REDIRECTS, validators=[MaxValueValidator(MAX_REDIRECTS_LIMIT)]
    )
    user_agent_override = models.CharField("User-Agent override", max_length=200, blank=True)
    tls_insecure_skip_verify = models.BooleanField("skip TLS certificate verification", default=False)
    tls_ca_bundle_path = models.CharField("CA bundle path", max_length=1000, blank=True)
    tls_min_version = models.CharField(
        "minimum TLS version",
        max_length=3,
        blank=True,
        default="",
        choices=[("", "Default (TLS 1.2)"), ("1.2", "TLS 1.2"), ("1.3", "TLS 1.3")],
    )
    # stdio only: runs may be lent an already-started process of this server (evalhub/mcp_client/warm_pool.py),
    # each process serving at most `warm_recycle_after` runs. Only for servers that keep no state between runs.
    warm_reuse = models.BooleanField(
        "warm reuse",
        default=False,
        help_text="Stateless stdio servers only: runs reuse already-started server processes.",
    )
    warm_recycle_after = models.PositiveSmallIntegerField(
        "recycle after (runs)",
        default=DEFAULT_RECYCLE_AFTER,
        validators=[MinValueValidator(1), MaxValueValidator(MAX_RECYCLE_AFTER)],
    )
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The last inspection: server info, resources and prompts (tools live in ToolSnapshot), or the last error.
    last_inspected_at = models.DateTimeField(null=True, blank=True)
    last_inspection = models.JSONField(null=True, blank=True, editable=False)
    last_error = models.JSONField(null=True, blank=True, editable=False)
    # An inspection in progress (it runs in the background, see services.server_inspect): when it started and
    # when it will have ended for sure. Both stay set if the web process stopped during it.
    inspecting_since = models.DateTimeField(null=True, blank=True, editable=False)
    inspecting_until = models.DateTimeField(null=True, blank=True, editable=False)
    # Execution-level evals call real tools on this server: who said that is fine, and when.
    side_effects_acknowledged_at = models.DateTimeField(null=True, blank=True, editable=False)
    side_effects_acknowledged_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", editable=False
    )
    # A connection saw notifications/evals/list_changed after the last inspection: the shipped evals may be stale.
    evals_changed_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["name"]
        verbose_name = "MCP server"

    def __str__(self) -> str:
        return self.name

    @property
    def is_stdio(self) -> bool:
        return self.transport == self.Transport.STDIO

    @property
    def target(self) -> str:
        """What the server is, in one line: its command line or URL."""
        if self.is_stdio:
            return " ".join([self.command, *self.args])
        return self.url

    def inspection_state(self) -> str:
        """ "idle", "inspecting", or "interrupted" (it should have ended by now: the web process stopped)."""
        if self.inspecting_until is None:
            return "idle"
        return "inspecting" if timezone.now() < self.inspecting_until else "interrupted"

    # Secrets -----------------------------------------------------------------------------------------------

    def secrets(self) -> dict[str, Any]:
        """{"bearer_token": str, "env": {name: value}, "headers": {name: value}}, values possibly `${VAR}`."""
        data = vault.unseal(self.sealed_secrets)
        return {
            "bearer_token": data.get("bearer_token", ""),
            "env": data.get("env", {}),
            "headers": data.get("headers", {}),
        }

    def set_secrets(self, *, bearer_token: str, env: dict[str, str], headers: dict[str, str]) -> None:
        data: dict[str, object] = {}
        if bearer_token:
            data["bearer_token"] = bearer_token
        if env:
            data["env"] = env
        if headers:
            data["headers"] = headers
        self.sealed_secrets = vault.seal(data)

    def secret_names(self) -> list[str]:
        """Labels of the secrets that are set, for "•••• set" displays; never their values."""
        data = self.secrets()
        names = ["Bearer token"] if data["bearer_token"] else []
        names += [f"header {name}" for name in sorted(data["headers"])]
        names += [f"env {name}" for name in sorted(data["env"])]
        return names

    @property
    def owner_is_staff(self) -> bool:
        """Whether the user who added the server is staff; its connections may then reach private networks.
        A server whose creator is gone (or unknown) is not."""
        return bool(self.created_by is not None and self.created_by.is_staff)

    def to_config(self) -> ServerConfig:
        """The connection settings with secrets revealed, for the one process that connects now."""
        data = self.secrets()
        secret_env = {name: vault.reveal(value) for name, value in data["env"].items()}
        secret_headers = {name: vault.reveal(value) for name, value in data["headers"].items()}
        token = vault.reveal(data["bearer_token"]) if data["bearer_token"] else None
        return ServerConfig(
            transport=self.transport,  # type: ignore[arg-type]
            command=self.command,
            args=list(self.args),
            cwd=self.cwd or None,
            env={**self.env, **secret_env},
            url=self.url,
            headers={**self.headers, **secret_headers},
            bearer_token=token,
            connect_timeout=self.connect_timeout,
            request_timeout=self.request_timeout,
            http_timeout=self.http_timeout,
            max_redirects=self.max_redirects,
            user_agent_override=self.user_agent_override,
            tls_insecure_skip_verify=self.tls_insecure_skip_verify,
            tls_ca_bundle_path=self.tls_ca_bundle_path,
            tls_min_version=self.tls_min_version,  # type: ignore[arg-type]
            protocol_mode=self.protocol_mode,  # type: ignore[arg-type]
            secret_env_keys=frozenset(secret_env),
            secret_header_keys=frozenset(secret_headers),
            # stdio servers start a process; they reach no address of their own choosing through EvalHub.
            egress=outbound.egress_policy(owner_is_staff=self.is_stdio or self.owner_is_staff),
        )

    def record_evals(self, evals: list[dict[str, Any]]) -> None:
        """Replace the shipped evals with those an inspection kept (already capped)."""
        self.shipped_evals.all().delete()
        ShippedEval.objects.bulk_create(
            ShippedEval(server=self, position=position, eval_id=item["id"], data=item)
            for position, item in enumerate(evals)
        )

    # Tool snapshots ----------------------------------------------------------------------------------------

    def latest_snapshot(self) -> ToolSnapshot | None:
        return self.snapshots.order_by("-created_at", "-id").first()

    def record_tools(self, tools: list[dict[str, Any]]) -> ToolSnapshot:
        """Keep the tools an inspection saw; a new snapshot only when they differ from the latest one."""
        digest = tools_hash(tools)
        latest = self.latest_snapshot()
        now = timezone.now()
        if latest is not None and latest.tools_hash == digest:
            latest.last_seen_at = now
            latest.save(update_fields=["last_seen_at"])
            return latest
        return ToolSnapshot.objects.create(server=self, tools_hash=digest, tools=tools, last_seen_at=now)


class ShippedEval(models.Model):
    """One eval the server's latest inspection listed (evals/list), as the server sent it. Each inspection replaces
    the server's rows; at most EVALHUB_SHIPPED_EVALS_MAX of them, each at most EVALHUB_SHIPPED_EVAL_MAX_BYTES (what
    was left out is `last_inspection["evals_cap"]`). Their own rows, so a page reads one page of them, not all."""

    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="shipped_evals")
    position = models.PositiveIntegerField()  # 0-based, in the order the server listed them
    eval_id = models.TextField()
    data = models.JSONField()

    class Meta:
        ordering = ["server", "position"]
        constraints = [models.UniqueConstraint(fields=["server", "position"], name="one_shipped_eval_per_position")]

    def __str__(self) -> str:
        return f"{self.server.name} · {self.eval_id}"


class ToolSnapshot(models.Model):
    """The exact tool definitions a server offered; runs record which snapshot they ran against."""

    server = models.ForeignKey(McpServer, on_delete=models.CASCADE, related_name="snapshots")
    tools_hash = models.CharField(max_length=64, db_index=True)
    tools = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)
    last_seen_at = models.DateTimeField()

    class Meta:
        ordering = ["-created_at", "-id"]
        get_latest_by = "created_at"

    def __str__(self) -> str:
        return f"{self.server.name} @ {self.tools_hash[:12]}"

    @property
    def tool_names(self) -> list[str]:
        return [tool["name"] for tool in self.tools]

    def previous(self) -> ToolSnapshot | None:
        return (
            ToolSnapshot.objects.filter(server_id=self.server_id, created_at__lte=self.created_at)
            .exclude(pk=self.pk)
            .order_by("-created_at", "-id")
            .first()
        )
