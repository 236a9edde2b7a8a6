"""The streams between a transport and the session, seen by watchers.

EvalHub needs a few facts the SDK's typed session drops or refuses: tools that are not valid MCP (tool_filter),
capabilities the SDK has no field for and notifications it does not know (announcements). Each watcher sees every
message on the way out and may replace an incoming one before the session reads it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Any, Protocol

from mcp.shared.message import SessionMessage

if TYPE_CHECKING:
    # The SDK's (read_stream, write_stream) pair; only a private SDK module names the types.
    from mcp.client._transport import ReadStream, TransportStreams, WriteStream


class StreamWatcher(Protocol):
    """Something that sees every message between the transport and the session, and may replace incoming ones."""

    def sent(self, item: SessionMessage) -> None: ...

    def received(self, item: SessionMessage | Exception) -> SessionMessage | Exception: ...


@asynccontextmanager
async def filtered(
    transport: AbstractAsyncContextManager[TransportStreams], *watchers: StreamWatcher
) -> AsyncIterator[TransportStreams]:
    """`transport`, with its streams seen by `watchers` in order."""
    async with transport as (read_stream, write_stream):
        yield _Reader(read_stream, watchers), _Writer(write_stream, watchers)


class _Reader:
    def __init__(self, inner: ReadStream[SessionMessage | Exception], watchers: tuple[StreamWatcher, ...]) -> None:
        self._inner = inner
        self._watchers = watchers

    def _received(self, item: SessionMessage | Exception) -> SessionMessage | Exception:
        for watcher in self._watchers:
            item = watcher.received(item)
        return item

    async def receive(self) -> SessionMessage | Exception:
        return self._received(await self._inner.receive())

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _Reader:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        return self._received(await self._inner.__anext__())

    async def __aenter__(self) -> _Reader:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        return await self._inner.__aexit__(*exc_info)

    def __getattr__(self, name: str) -> Any:
        # `last_context` and whatever else a transport's stream offers the session.
        return getattr(self._inner, name)


class _Writer:
    def __init__(self, inner: WriteStream[SessionMessage], watchers: tuple[StreamWatcher, ...]) -> None:
        self._inner = inner
        self._watchers = watchers

    async def send(self, item: SessionMessage, /) -> None:
        for watcher in self._watchers:
            watcher.sent(item)
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _Writer:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        return await self._inner.__aexit__(*exc_info)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
