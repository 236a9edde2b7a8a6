"""How to reach one MCP server: the transport, its command or URL, credentials and timeouts."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal
from urllib.parse import urlsplit

from evalhub.egress import PRIVATE_ALLOWED, EgressPolicy

Transport = Literal["stdio", "http", "sse"]
ProtocolMode = Literal["auto", "legacy"]
TlsMinVersion = Literal["", "1.2", "1.3"]

# httpx's own default, which EvalHub used before the limit became a setting.
DEFAULT_MAX_REDIRECTS = 20
MAX_REDIRECTS_LIMIT = 50
MAX_HTTP_TIMEOUT = 3600.0
# An RFC 7230 token: what a header name may be.
HEADER_NAME = re.compile(r"^[A-Za-z0-9!#$%&'*+.^_`|~-]+$")
HEADER_NAME_RULE = "an RFC 7230 token: letters, digits and ! # $ % & ' * + - . ^ _ ` | ~; no spaces or colons"

TRANSPORTS: tuple[Transport, ...] = ("stdio", "http", "sse")

# Headers whose values are credentials whether or not the caller marked them secret.
ALWAYS_SECRET_HEADERS = frozenset({"authorization", "proxy-authorization", "cookie", "x-api-key", "api-key"})


@dataclass(frozen=True)
class ServerConfig:
    """Everything needed to open one connection. Values are already resolved (secrets decrypted by the caller).

    stdio: `command` and `args` are run directly, never through a shell; `env` is added to a small allowlisted
    environment (see `environment.ENV_ALLOWLIST`). http/sse: `url`, extra `headers` and an optional
    `bearer_token` sent as `Authorization: Bearer <token>`.

    `egress` decides which addresses an http/sse connection may reach (checked on every connection, after DNS).

    `connect_timeout` bounds process start / TCP connect (and the TLS handshake) plus the MCP handshake;
    `request_timeout` bounds each request after that.

    http/sse transport settings (mcptest's `server.http`): `http_timeout` is how long one HTTP response may stay
    silent (None: no limit beyond `request_timeout`); `max_redirects` how many same-origin redirects are followed
    (never one to another origin); `user_agent_override` replaces the client's User-Agent;
    `tls_insecure_skip_verify` turns certificate checks off, `tls_ca_bundle_path` trusts the CAs in that PEM file
    instead of the system's, and `tls_min_version` ("1.2"/"1.3") refuses older TLS versions.

    `protocol_mode="auto"` is the SDK default (probe 2026 `server/discover`, fall back to
    `initialize`); "legacy" sends `initialize` only, for old servers that never answer unknown methods.
    """

    transport: Transport
    command: str = ""
    args: list[str] = field(default_factory=list)
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    bearer_token: str | None = None
    connect_timeout: float = 30.0
    request_timeout: float = 60.0
    secret_env_keys: frozenset[str] = frozenset()
    secret_header_keys: frozenset[str] = frozenset()
    protocol_mode: ProtocolMode = "auto"
    egress: EgressPolicy = PRIVATE_ALLOWED
    http_timeout: float | None = None
    max_redirects: int = DEFAULT_MAX_REDIRECTS
    user_agent_override: str = ""
    tls_insecure_skip_verify: bool = False
    tls_ca_bundle_path: str = ""
    tls_min_version: TlsMinVersion = ""

    def problems(self) -> list[str]:
        """Human-readable reasons this config cannot be used; empty when it is fine."""
        found: list[str] = []
        if self.transport not in TRANSPORTS:
            found.append(f"Unknown transport {self.transport!r}; use one of {', '.join(TRANSPORTS)}.")
        elif self.transport == "stdio":
            if not self.command.strip():
                found.append("A stdio server needs a command to run.")
            if not isinstance(self.args, list) or not all(isinstance(arg, str) for arg in self.args):
                found.append("Arguments must be a list of strings (they are never passed through a shell).")
        else:
            parts = urlsplit(self.url)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                found.append("The URL must start with http:// or https:// and name a host.")
        if self.protocol_mode not in ("auto", "legacy"):
            found.append(f"Unknown protocol mode {self.protocol_mode!r}; use 'auto' or 'legacy'.")
        for name, value in (("connect", self.connect_timeout), ("request", self.request_timeout)):
            if not value > 0:
                found.append(f"The {name} timeout must be a positive number of seconds.")
        if self.http_timeout is not None and not self.http_timeout > 0:
            found.append("The HTTP timeout must be a positive number of seconds.")
        if self.max_redirects < 0:
            found.append("Max redirects must be 0 or more.")
        if self.tls_min_version not in ("", "1.2", "1.3"):
            found.append(f"Unknown TLS minimum version {self.tls_min_version!r}; use '1.2' or '1.3'.")
        return found

    def http_headers(self) -> dict[str, str]:
        """The headers sent with every HTTP request: the configured ones plus the bearer token."""
        headers = dict(self.headers)
        if self.user_agent_override:
            headers["User-Agent"] = self.user_agent_override
        if self.bearer_token:
            headers["Authorization"] = f"Bearer {self.bearer_token}"
        return headers

    def secrets(self) -> set[str]:
        """Every configured value that must never appear in messages, logs or stored output."""
        found: set[str] = set()
        if self.bearer_token:
            found.add(self.bearer_token)
        secret_headers = {key.lower() for key in self.secret_header_keys} | ALWAYS_SECRET_HEADERS
        for key, value in self.headers.items():
            if key.lower() in secret_headers and value:
                found.add(value)
                # "Bearer abc" typed into a header: the bare token is the secret too.
                scheme, _, credential = value.partition(" ")
                if credential and scheme.lower() in ("bearer", "basic", "token"):
                    found.add(credential)
        for key in self.secret_env_keys:
            if self.env.get(key):
                found.add(self.env[key])
        password = urlsplit(self.url).password if self.url else None
        if password:
            found.add(password)
        return found
