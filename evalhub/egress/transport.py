"""HTTP transports that check every address they connect to against an EgressPolicy.

The check sits where the socket is opened (the connection pool's network backend), so it sees the address
actually connected to: after DNS resolution, for every redirect the client follows, for every new connection of a
long session. The host name is resolved once, each resolved address is judged, and the socket is opened to a judged
address: a name cannot resolve to a public address for the check and to a metadata address for the connection.
TLS still verifies the certificate against the host name of the URL (the pool passes it as SNI separately).

Both SDKs speak httpx2 (a fork of httpx): the openai SDK blocking, for model providers, and the MCP SDK
asynchronously, for Streamable HTTP and SSE servers. Neither client takes a network backend as a parameter, so
the transport's own pool gets ours in place of its default one; everything else (TLS, limits, keep-alive) stays
as httpx2 set it. Environment proxies (HTTP_PROXY…) are not used: behind a proxy the address connected to would
be the proxy's, not the server's.
"""

from __future__ import annotations

import functools
import socket
import ssl
from collections.abc import Iterable

import anyio
import httpcore2
import httpx2

from evalhub.egress.addresses import EgressPolicy, EgressRefused

SocketOption = tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]


class GuardedBackend(httpcore2.NetworkBackend):
    """httpcore2's blocking network backend, connecting only to addresses the policy allows."""

    def __init__(self, policy: EgressPolicy) -> None:
        self._policy = policy
        self._inner = httpcore2.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore2.NetworkStream:
        try:
            addresses = self._policy.addresses(host, port)
        except socket.gaierror as exc:
            # What the default backend raises for a name that does not resolve, so callers explain it the same way.
            raise httpcore2.ConnectError(str(exc)) from exc
        *others, last = addresses  # a resolver returns at least one address or raises
        for address in others:
            try:
                return self._inner.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except httpcore2.ConnectError:
                continue  # the next address, as socket.create_connection does
        return self._inner.connect_tcp(
            last, port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[SocketOption] | None = None
    ) -> httpcore2.NetworkStream:
        raise EgressRefused("EvalHub connects to servers over TCP only, never to a Unix socket.")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class AsyncGuardedBackend(httpcore2.AsyncNetworkBackend):
    """httpcore2's asynchronous network backend, connecting only to addresses the policy allows."""

    def __init__(self, policy: EgressPolicy) -> None:
        self._policy = policy
        self._inner = httpcore2.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        try:
            # Resolving blocks; a cancelled connect abandons the lookup instead of waiting for it.
            addresses = await anyio.to_thread.run_sync(self._policy.addresses, host, port, abandon_on_cancel=True)
        except socket.gaierror as exc:
            raise httpcore2.ConnectError(str(exc)) from exc
        *others, last = addresses
        for address in others:
            try:
                return await self._inner.connect_tcp(
                    address, port, timeout=timeout, local_address=local_address, socket_options=socket_options
                )
            except httpcore2.ConnectError:
                continue
        # The last failure propagates as it was raised, with its cause (connection refused, unreachable…).
        return await self._inner.connect_tcp(
            last, port, timeout=timeout, local_address=local_address, socket_options=socket_options
        )

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[SocketOption] | None = None
    ) -> httpcore2.AsyncNetworkStream:
        raise EgressRefused("EvalHub connects to servers over TCP only, never to a Unix socket.")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx2's default certificate check, loaded once per process: loading the CA bundle costs ~100 ms of CPU,
    which a worker carrying many runs on threads would otherwise pay (holding the GIL) for every connection."""
    return httpx2.create_ssl_context()


def guarded_async_transport(policy: EgressPolicy, *, verify: ssl.SSLContext | None = None) -> httpx2.AsyncHTTPTransport:
    """An httpx2 transport (for the MCP SDK's clients) that connects only where `policy` allows; `verify` replaces
    the default certificate check (a server's own CA bundle, TLS minimum version, or none)."""
    transport = httpx2.AsyncHTTPTransport(verify=verify or tls_context())
    pool = transport._pool
    assert isinstance(pool, httpcore2.AsyncConnectionPool)
    pool._network_backend = AsyncGuardedBackend(policy)
    return transport
