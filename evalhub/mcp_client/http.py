"""Streamable HTTP and SSE transports, with the HTTP status of every response recorded for error messages.

The SDK's Streamable HTTP transport turns a 401, 403 or 500 into a JSON-RPC error that says only "Server
returned an error response" (and a 404 into "Not Found"), so the status code is gone by the time the error
reaches us. A response hook on our own httpx2 client keeps it. (The SDK uses httpx2, a fork of httpx, for
its transports; a plain httpx.AsyncClient is not accepted.)
"""

from __future__ import annotations

import logging
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from evalhub.egress import guarded_async_transport, tls_context
from evalhub.mcp_client.config import ServerConfig
from evalhub.mcp_client.errors import ErrorKind, McpConnectionError

if TYPE_CHECKING:
    # The SDK's (read_stream, write_stream) pair; only a private SDK module names the type.
    from mcp.client._transport import TransportStreams

# httpx2 logs every request URL at INFO, and a URL can carry a token (userinfo, ?api_key=...). Quiet it
# unless the application configured that logger itself.
if logging.getLogger("httpx2").level == logging.NOTSET:
    logging.getLogger("httpx2").setLevel(logging.WARNING)

# The SDK's default for how long an idle SSE stream may stay silent.
SSE_READ_TIMEOUT = 300.0
# Closing a session sends DELETE; a hung server must not hold up the close for longer than this.
CLOSE_TIMEOUT = 5.0


@dataclass
class HttpFacts:
    """The last answer to a POST (a JSON-RPC message), read when a request fails to explain why.

    GET and DELETE answers are left out: a 405 for the optional standalone GET stream is normal.
    """

    status: int | None = None
    content_type: str = ""

    async def on_response(self, response: httpx2.Response) -> None:
        if response.request.method == "POST":
            self.status = response.status_code
            self.content_type = response.headers.get("content-type", "").partition(";")[0].strip().lower()


def endpoint(url: str) -> tuple[str, str]:
    """('host:port', 'scheme://host:port/path') for messages: no userinfo, no query string (tokens hide there)."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        port = 443 if parts.scheme == "https" else 80
    return f"{host}:{port}", f"{parts.scheme}://{host}:{port}{parts.path}"


def _timeout(config: ServerConfig) -> httpx2.Timeout:
    # No read timeout by default: a tool call may legitimately stream nothing for minutes, and every
    # request is already bounded by the session's request timeout. `http_timeout` sets one for answers to POSTs
    # (see _per_request_timeouts).
    write = config.http_timeout or config.request_timeout
    return httpx2.Timeout(connect=config.connect_timeout, read=None, write=write, pool=None)


TLS_VERSIONS = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}


def ssl_context(config: ServerConfig) -> ssl.SSLContext:
    """The certificate check this server's settings ask for; the shared default when they ask for nothing.

    Raises McpConnectionError when `tls_ca_bundle_path` cannot be read as PEM certificates.
    """
    if not (config.tls_insecure_skip_verify or config.tls_ca_bundle_path or config.tls_min_version):
        return tls_context()
    if config.tls_insecure_skip_verify:
        context = httpx2.create_ssl_context(verify=False)
    elif config.tls_ca_bundle_path:
        try:
            context = ssl.create_default_context(cafile=config.tls_ca_bundle_path)
        except (OSError, ValueError) as exc:  # ssl.SSLError is an OSError
            reason = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or str(exc)
            raise McpConnectionError(
                ErrorKind.INVALID_CONFIG,
                f"The CA bundle {config.tls_ca_bundle_path} could not be loaded ({reason}); give the path of a PEM "
                "file of CA certificates readable by EvalHub's web app and worker.",
            ) from exc
    else:
        context = httpx2.create_ssl_context()
    if config.tls_min_version:
        context.minimum_version = TLS_VERSIONS[config.tls_min_version]
    return context


def _client_kwargs(config: ServerConfig, facts: HttpFacts) -> dict[str, Any]:
    """What every httpx2 client of this server shares: hooks, the redirect budget, the guarded TLS transport."""
    return {
        "event_hooks": {"request": [_per_request_timeouts(config)], "response": [facts.on_response]},
        # The SDK follows a redirect only within the endpoint's origin, at most this many times, whatever
        # follow_redirects says: headers and tokens never reach another address.
        "max_redirects": config.max_redirects,
        "transport": guarded_async_transport(config.egress, verify=ssl_context(config)),
    }


def _per_request_timeouts(config: ServerConfig) -> Callable[[httpx2.Request], Awaitable[None]]:
    async def bound(request: httpx2.Request) -> None:
        # Per-request timeouts live in request.extensions; httpx2 reads them after the request hooks run.
        if request.method == "DELETE":
            limit = CLOSE_TIMEOUT
            request.extensions["timeout"] = {"connect": limit, "read": limit, "write": limit, "pool": limit}
        elif request.method == "POST" and config.http_timeout is not None:
            # Answers only: a GET event stream is silent whenever nothing happens, and must stay open then.
            request.extensions["timeout"] = {**request.extensions.get("timeout", {}), "read": config.http_timeout}

    return bound


@asynccontextmanager
async def http_transport(config: ServerConfig, facts: HttpFacts) -> AsyncIterator[TransportStreams]:
    client = httpx2.AsyncClient(
        headers=config.http_headers(), timeout=_timeout(config), **_client_kwargs(config, facts)
    )
    async with client, streamable_http_client(config.url, http_client=client) as streams:
        yield streams


def sse_transport(config: ServerConfig, facts: HttpFacts) -> AbstractAsyncContextManager[TransportStreams]:
    def client_factory(
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        kwargs: dict[str, Any] = {"headers": headers, "timeout": timeout, **_client_kwargs(config, facts)}
        if auth is not None:
            kwargs["auth"] = auth
        return httpx2.AsyncClient(**kwargs)

    return sse_client(
        config.url,
        headers=config.http_headers(),
        timeout=config.connect_timeout,
        sse_read_timeout=max(SSE_READ_TIMEOUT, config.request_timeout),
        httpx_client_factory=client_factory,
    )
