"""A total deadline for one HTTP exchange with a provider, enforced on every socket operation.

httpx's timeouts (httpx2's, the fork the openai SDK uses) apply to each read or write on its own: an endpoint
that sends a byte every few seconds never trips a 10 s read timeout and keeps a call alive indefinitely. Here
every socket operation (connect, TLS handshake, each write, each read) gets at most the time left until the
deadline of the exchange in progress, so the whole exchange, headers and body included, ends by that deadline:

    with exchange_deadline(seconds) as progress:
        sdk.chat.completions.create(...)   # over an httpx2.Client(transport=DeadlineTransport())

The deadline lives in a context variable, set around each attempt by the client; outside one, sockets keep
httpx's own timeouts.
"""

from __future__ import annotations

import time
import typing
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

import httpcore2
import httpx2

from evalhub.egress import tls_context

# Writes go out in pieces this big, each with the time then left: one send() of a large body to a server that
# reads slowly must not get the whole remaining time per kernel-sized chunk.
_WRITE_CHUNK = 64 * 1024


@dataclass
class Progress:
    """The exchange in progress: its deadline (time.monotonic()) and how many bytes the provider sent so far."""

    deadline: float
    received: int = 0

    def left(self, timeout: float | None, error: type[httpcore2.TimeoutException]) -> float:
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise error("the exchange's total deadline has passed")
        return remaining if timeout is None else min(timeout, remaining)


_current: ContextVar[Progress | None] = ContextVar("provider_exchange", default=None)


@contextmanager
def exchange_deadline(seconds: float) -> Iterator[Progress]:
    """Every socket operation of DeadlineTransport inside the block ends within `seconds` from now, in total."""
    progress = Progress(deadline=time.monotonic() + seconds)
    token = _current.set(progress)
    try:
        yield progress
    finally:
        _current.reset(token)


def _bounded(timeout: float | None, error: type[httpcore2.TimeoutException]) -> float | None:
    progress = _current.get()
    return timeout if progress is None else progress.left(timeout, error)


class _Stream(httpcore2.NetworkStream):
    def __init__(self, inner: httpcore2.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data = self._inner.read(max_bytes, _bounded(timeout, httpcore2.ReadTimeout))
        if (progress := _current.get()) is not None:
            progress.received += len(data)
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        for start in range(0, len(buffer), _WRITE_CHUNK):
            self._inner.write(buffer[start : start + _WRITE_CHUNK], _bounded(timeout, httpcore2.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self, ssl_context: typing.Any, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore2.NetworkStream:
        bounded = _bounded(timeout, httpcore2.ConnectTimeout)
        return _Stream(self._inner.start_tls(ssl_context, server_hostname, bounded))

    def get_extra_info(self, info: str) -> typing.Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore2.NetworkBackend):
    """httpcore2's network backend with every operation cut to the current exchange's deadline.

    `inner` is the backend that actually opens sockets (httpcore2's own by default), so another wrapper, such as
    an address check at connect time, can sit underneath.
    """

    def __init__(self, inner: httpcore2.NetworkBackend | None = None) -> None:
        self._inner = inner or httpcore2.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[typing.Any] | None = None,
    ) -> httpcore2.NetworkStream:
        bounded = _bounded(timeout, httpcore2.ConnectTimeout)
        return _Stream(self._inner.connect_tcp(host, port, bounded, local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[typing.Any] | None = None
    ) -> httpcore2.NetworkStream:
        bounded = _bounded(timeout, httpcore2.ConnectTimeout)
        return _Stream(self._inner.connect_unix_socket(path, bounded, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class DeadlineTransport(httpx2.HTTPTransport):
    """httpx2's own HTTP transport (TLS verification, HTTP/1.1, keep-alive) over DeadlineBackend."""

    def __init__(self, backend: httpcore2.NetworkBackend | None = None) -> None:
        super().__init__(verify=tls_context())
        # httpx2 takes no network backend, its connection pool does: the same pool as httpx2's default one.
        self._pool = httpcore2.ConnectionPool(
            ssl_context=tls_context(),
            max_connections=100,
            max_keepalive_connections=20,
            keepalive_expiry=5.0,
            network_backend=DeadlineBackend(backend),
        )
