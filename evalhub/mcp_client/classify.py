"""Turning whatever the SDK raised into one McpConnectionError with a sentence a person can act on.

Failures reach us in three shapes: an `MCPError` from a request (its code says little: the SDK reports a
crashed stdio server and an HTTP 401 alike as a JSON-RPC error), a transport exception such as
`httpx2.ConnectError`, or either of those wrapped in one or more (nested) `ExceptionGroup`s by the anyio task
groups inside the SDK. We flatten the groups, then combine the root cause with what the transport recorded
(exit code, stderr, stray stdout, last HTTP status) to say what actually happened.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

import anyio
import httpx2
import mcp_types
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from evalhub.egress import EgressRefused
from evalhub.mcp_client.config import ServerConfig
from evalhub.mcp_client.errors import ErrorKind, McpConnectionError
from evalhub.mcp_client.http import HttpFacts, endpoint
from evalhub.mcp_client.process import StdioState, describe_exit
from evalhub.mcp_client.redact import Redactor
from evalhub.mcp_client.stdio import MAX_LINE_BYTES

Phase = Literal["connect", "request"]


@dataclass
class Context:
    """What we know about the connection whose operation failed."""

    config: ServerConfig
    redact: Redactor
    stdio: StdioState | None = None
    http: HttpFacts | None = None

    def error(self, kind: ErrorKind, message: str) -> McpConnectionError:
        tail = self.stdio.stderr_tail() if self.stdio is not None else ""
        return McpConnectionError(kind, self.redact(message), stderr_tail=tail)


def leaves(exc: BaseException) -> list[BaseException]:
    """The non-group exceptions inside `exc`, depth first, without cancellations."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in leaves(inner)]
    if isinstance(exc, anyio.get_cancelled_exc_class()):
        return []
    return [exc]


def _causes(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _find(exc: BaseException, kind: type[BaseException]) -> BaseException | None:
    return next((cause for cause in _causes(exc) if isinstance(cause, kind)), None)


def _seconds(value: float) -> str:
    return f"{value:g} s"


async def from_exception(
    exc: BaseException, ctx: Context, *, phase: Phase, what: str, seconds: float | None = None
) -> McpConnectionError:
    """Classify one root-cause exception.

    `what` names the operation ("the call to tool 'search'"); `seconds` is its timeout if not the default.
    """
    if isinstance(exc, McpConnectionError):
        return exc
    if (refused := _find(exc, EgressRefused)) is not None:
        return ctx.error(ErrorKind.ADDRESS_REFUSED, f"Refused to connect: {refused}")
    if ctx.http is not None and (settings_error := _from_http_settings(exc, ctx, what=what)) is not None:
        return settings_error
    if isinstance(exc, MCPError):
        return await _from_mcp_error(exc, ctx, phase=phase, what=what, seconds=seconds)
    if isinstance(exc, httpx2.HTTPStatusError):
        return _from_status(exc.response.status_code, ctx) or ctx.error(
            ErrorKind.HTTP_ERROR, f"The server answered HTTP {exc.response.status_code}."
        )
    # Before the network check: TimeoutError is an OSError.
    if isinstance(exc, TimeoutError):
        return timeout_error(ctx, phase=phase, what=what, seconds=seconds)
    if ctx.http is not None and (_find(exc, httpx2.TransportError) or _find(exc, OSError)):
        return _from_network(exc, ctx, phase=phase)
    if isinstance(exc, ValidationError):
        return ctx.error(
            ErrorKind.PROTOCOL_ERROR, f"The server's answer to {what} is not valid MCP ({describe_validation(exc)})."
        )
    if isinstance(exc, RuntimeError):
        # How the SDK reports protocol violations it detects: an unsupported protocol version, or
        # structuredContent that does not match the tool's outputSchema.
        reason = str(exc).rstrip(".")
        return ctx.error(ErrorKind.PROTOCOL_ERROR, f"The server's answer to {what} was rejected: {reason}.")
    return ctx.error(ErrorKind.PROTOCOL_ERROR, f"{what[:1].upper()}{what[1:]} failed: {type(exc).__name__}: {exc}")


def describe_validation(exc: ValidationError, *, within: tuple[str, ...] = ()) -> str:
    """The first problem and where it is, e.g. "tools.3.inputSchema: Input should be a valid dictionary";
    locations inside `within` (e.g. ("tools", "0")) are given relative to it."""
    if not exc.errors():
        return str(exc)
    first = exc.errors()[0]
    location = [str(part) for part in first["loc"]]
    if within and tuple(location[: len(within)]) == within:
        location = location[len(within) :]
    where = ".".join(location)
    return f"{where}: {first['msg']}" if where else str(first["msg"])


def timeout_error(ctx: Context, *, phase: Phase, what: str, seconds: float | None = None) -> McpConnectionError:
    config = ctx.config
    if (status_error := _from_http_facts(ctx, phase=phase)) is not None:
        # The SSE transport swallows a failed POST and lets the request time out; the status says why.
        return status_error
    if phase == "request":
        limit = _seconds(seconds if seconds is not None else config.request_timeout)
        return ctx.error(
            ErrorKind.REQUEST_TIMEOUT,
            f"The server did not answer {what} within the request timeout ({limit}).",
        )
    limit = _seconds(config.connect_timeout)
    if ctx.stdio is not None:
        if ctx.stdio.noise:
            return _noise_error(ctx, ending=f"did not complete the MCP handshake within {limit}")
        return ctx.error(
            ErrorKind.CONNECT_TIMEOUT,
            f"The server started but did not answer the MCP initialize request within the connect timeout "
            f"({limit}); check that the command starts an MCP server speaking stdio.",
        )
    hostport, url = endpoint(config.url)
    if ctx.http is None or ctx.http.status is None:
        return ctx.error(
            ErrorKind.CONNECT_TIMEOUT,
            f"Got no answer from {hostport} within the connect timeout ({limit}); check the URL and that the "
            "server is running and reachable.",
        )
    return ctx.error(
        ErrorKind.CONNECT_TIMEOUT,
        f"The server at {url} did not complete the MCP initialize handshake within the connect timeout ({limit}).",
    )


def _noise_error(ctx: Context, *, ending: str) -> McpConnectionError:
    assert ctx.stdio is not None
    sample = ctx.stdio.noise[0]
    return ctx.error(
        ErrorKind.INVALID_OUTPUT,
        f"The server wrote non-JSON text to stdout ({sample!r}) and {ending}; stdio servers must write only "
        "JSON-RPC messages to stdout and send logs to stderr.",
    )


async def _from_mcp_error(
    exc: MCPError, ctx: Context, *, phase: Phase, what: str, seconds: float | None
) -> McpConnectionError:
    code = exc.error.code
    if (status_error := _from_http_facts(ctx, phase=phase)) is not None:
        return status_error
    if code == mcp_types.CONNECTION_CLOSED:
        return await _connection_closed(exc, ctx, phase=phase, what=what)
    if code == mcp_types.REQUEST_TIMEOUT:
        return timeout_error(ctx, phase=phase, what=what, seconds=seconds)
    if phase == "connect":
        return ctx.error(
            ErrorKind.SERVER_ERROR,
            f"The server rejected the MCP handshake: {exc.error.message} (JSON-RPC error {code}).",
        )
    return ctx.error(
        ErrorKind.SERVER_ERROR,
        f"The server answered {what} with an error: {exc.error.message} (JSON-RPC error {code}).",
    )


async def _connection_closed(exc: MCPError, ctx: Context, *, phase: Phase, what: str) -> McpConnectionError:
    if ctx.stdio is not None and ctx.stdio.oversized:
        # EvalHub closed the connection itself: the server did not crash, its message was too big to buffer.
        return ctx.error(
            ErrorKind.INVALID_OUTPUT,
            f"The server's answer to {what} was larger than {MAX_LINE_BYTES // 2**20} MB, EvalHub's limit for one "
            "stdio message, so EvalHub stopped reading it and closed the connection; make the answer smaller (e.g. "
            "paginate) or return a link to the data.",
        )
    if ctx.stdio is not None:
        # The pipe closes a moment before the event loop notices the exit.
        returncode = await ctx.stdio.wait_exit(1.0)
        how = describe_exit(returncode) if returncode is not None else "closed its stdout"
        if phase == "connect":
            if ctx.stdio.noise:
                return _noise_error(ctx, ending=f"{how} before completing the MCP handshake")
            return ctx.error(
                ErrorKind.SERVER_EXITED,
                f"The server {how} during start-up, before completing the MCP handshake; its stderr output "
                "usually says why.",
            )
        return ctx.error(
            ErrorKind.SERVER_CRASHED,
            f"The server process {how} during {what}; its stderr output usually says why.",
        )
    hostport, _ = endpoint(ctx.config.url)
    return ctx.error(
        ErrorKind.CONNECTION_LOST,
        f"The connection to {hostport} was lost during {what} ({exc.error.message}).",
    )


_STATUS_HINTS = {
    400: "check the URL and that it points at an MCP endpoint",
    405: "check the URL and the transport (an SSE server needs the SSE transport)",
    406: "check the URL points at an MCP endpoint",
    500: "the server failed; check its logs",
    502: "a proxy in front of the server could not reach it; check the server is running",
    503: "the server is unavailable; check it is running and healthy",
    504: "a proxy in front of the server timed out; check the server is running",
}


def _from_status(status: int, ctx: Context, *, phase: Phase = "connect") -> McpConnectionError | None:
    hostport, url = endpoint(ctx.config.url)
    if status in (401, 403):
        word = "Unauthorized" if status == 401 else "Forbidden"
        if ctx.config.http_headers():
            return ctx.error(
                ErrorKind.AUTH_FAILED,
                f"The server rejected the credentials ({status} {word}); check the bearer token and headers.",
            )
        # Nothing was sent to reject: the address may want credentials, or not be an MCP endpoint at all.
        return ctx.error(
            ErrorKind.AUTH_FAILED,
            f"The server at {url} refused access ({status} {word}); no bearer token or headers are configured "
            "for it. If it needs credentials add them; otherwise check the URL points at an MCP endpoint.",
        )
    if status == 404 and phase == "request":
        return ctx.error(
            ErrorKind.CONNECTION_LOST,
            f"The server at {hostport} no longer knows this session (404 Not Found); it may have restarted.",
        )
    if status == 404:
        return ctx.error(
            ErrorKind.NOT_FOUND,
            f"The server answered 404 Not Found for {url}; check the URL path (MCP endpoints are often at /mcp).",
        )
    if status >= 400:
        hint = _STATUS_HINTS.get(status, "check the URL and the server's logs")
        return ctx.error(ErrorKind.HTTP_ERROR, f"The server answered HTTP {status} for {url}; {hint}.")
    return None


def _from_http_settings(exc: BaseException, ctx: Context, *, what: str) -> McpConnectionError | None:
    """A failure the server's HTTP timeout caused, named as such."""
    config = ctx.config
    hostport, _ = endpoint(config.url)
    if config.http_timeout is not None and _find(exc, httpx2.ReadTimeout) is not None:
        return ctx.error(
            ErrorKind.REQUEST_TIMEOUT,
            f"The server at {hostport} sent nothing for {_seconds(config.http_timeout)} (the server's HTTP "
            f"timeout) during {what}; raise the HTTP timeout if it is slow.",
        )
    return None


def _from_http_facts(ctx: Context, *, phase: Phase) -> McpConnectionError | None:
    """An error explained by the last POST's status or content type, if it explains one."""
    facts = ctx.http
    if facts is None or facts.status is None:
        return None
    # A JSON body at an error status carries the server's own JSON-RPC error, which the SDK already
    # surfaced; credentials rejections are reported as such whatever the body says.
    if facts.status in (401, 403) or (facts.status >= 400 and facts.content_type != "application/json"):
        return _from_status(facts.status, ctx, phase=phase)
    if 300 <= facts.status < 400:
        _, url = endpoint(ctx.config.url)
        return ctx.error(
            ErrorKind.HTTP_ERROR,
            f"The server at {url} answered with a redirect (HTTP {facts.status}) that was not followed: EvalHub "
            f"follows at most {ctx.config.max_redirects} (the server's Max redirects), and only to the same scheme, "
            "host and port, since headers and tokens were given for this address. Use the final URL.",
        )
    if facts.status == 200 and facts.content_type not in ("application/json", "text/event-stream"):
        _, url = endpoint(ctx.config.url)
        return ctx.error(
            ErrorKind.PROTOCOL_ERROR,
            f"The server at {url} answered with {facts.content_type}, not an MCP response; check the URL points "
            "at the MCP endpoint.",
        )
    return None


def _from_network(exc: BaseException, ctx: Context, *, phase: Phase) -> McpConnectionError:
    hostport, _ = endpoint(ctx.config.url)
    if (tls := _find(exc, ssl.SSLError)) is not None:
        reason = getattr(tls, "verify_message", None) or getattr(tls, "reason", None) or str(tls)
        return ctx.error(
            ErrorKind.TLS_ERROR,
            f"The TLS handshake with {hostport} failed ({reason}); if the server speaks plain HTTP use an "
            "http:// URL, otherwise check its certificate.",
        )
    if _find(exc, ConnectionRefusedError) is not None and phase == "request":
        return ctx.error(
            ErrorKind.CONNECTION_LOST,
            f"The server at {hostport} stopped accepting connections during the session (connection refused); "
            "did it stop or restart?",
        )
    if _find(exc, ConnectionRefusedError) is not None:
        return ctx.error(
            ErrorKind.CONNECTION_REFUSED,
            f"Could not connect to {hostport} (connection refused); is the server running?",
        )
    if _find(exc, socket.gaierror) is not None:
        host = hostport.rpartition(":")[0]
        return ctx.error(ErrorKind.NETWORK_ERROR, f"Could not resolve the host name {host}; check the URL.")
    if _find(exc, httpx2.TimeoutException) is not None:
        return timeout_error(ctx, phase="connect", what="the handshake")
    lost = phase == "request" and _find(exc, httpx2.RemoteProtocolError) is not None
    kind = ErrorKind.CONNECTION_LOST if lost else ErrorKind.NETWORK_ERROR
    return ctx.error(kind, f"The HTTP connection to {hostport} failed ({exc}); check the URL and the network.")
