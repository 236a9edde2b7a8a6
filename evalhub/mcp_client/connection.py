"""One live MCP connection: `async with connect(config) as conn:` then list and call over it."""

from __future__ import annotations

import asyncio
import functools
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, cast

import anyio
import mcp_types
from mcp import Client
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict, ValidationError

from evalhub.mcp_client import classify, convert, server_evals
from evalhub.mcp_client.announcements import Announcements
from evalhub.mcp_client.classify import Context
from evalhub.mcp_client.config import ServerConfig
from evalhub.mcp_client.errors import ErrorKind, McpConnectionError
from evalhub.mcp_client.http import HttpFacts, http_transport, sse_transport
from evalhub.mcp_client.process import StdioState
from evalhub.mcp_client.raw import RawAnswer
from evalhub.mcp_client.redact import Redactor
from evalhub.mcp_client.stdio import stdio_transport
from evalhub.mcp_client.stream_watch import filtered
from evalhub.mcp_client.tool_filter import InvalidTool, ToolListFilter

if TYPE_CHECKING:
    # The SDK's (read_stream, write_stream) pair; only a private SDK module names the type.
    from mcp.client._transport import TransportStreams


class _RawResult(BaseModel):
    """A result the SDK has no model for (a method outside the spec), kept whole: its fields are the extras."""

    model_config = ConfigDict(extra="allow")


CLIENT_INFO = mcp_types.Implementation(name="evalhub", version="0.1.0")
# A paginating server that never stops must not keep us listing forever.
MAX_PAGES = 100

T = TypeVar("T")
Item = TypeVar("Item")


class _Page(Protocol):
    @property
    def next_cursor(self) -> str | None: ...


Page = TypeVar("Page", bound=_Page)


@dataclass(frozen=True)
class ServerInfo:
    """Who answered the handshake. `capabilities` is the wire dict, e.g. {"tools": {"listChanged": true}}."""

    name: str
    version: str
    title: str | None
    protocol_version: str
    capabilities: dict[str, Any]
    instructions: str | None


class Connection:
    """An open session. Every method raises McpConnectionError, never an SDK exception."""

    def __init__(self, client: Client, ctx: Context, tool_filter: ToolListFilter, announcements: Announcements) -> None:
        self._client = client
        self._ctx = ctx
        self._tool_filter = tool_filter
        self._announcements = announcements
        # The loop the session lives on. A warm pool (warm_pool.py) lends it to runs on other loops; their
        # requests are handed to this one.
        self._home = _running_loop()
        # A request failed or a tool answered an error: a warm pool does not lend this server again.
        self.had_error = False
        # The SDK raises on a structuredContent that breaks the tool's outputSchema, losing the result. EvalHub
        # records the result and checks it itself (runs/tool_results.py), so an invalid one is shown, not fatal.
        client.session.validate_tool_result = _accept_tool_result  # type: ignore[method-assign]
        implementation = client.server_info
        self.info = ServerInfo(
            name=self._clean(implementation.name if implementation else ""),
            version=self._clean(implementation.version if implementation else ""),
            title=self._clean(implementation.title if implementation else None),
            protocol_version=client.protocol_version,
            # The SDK's view, plus the capabilities it has no field for (e.g. "evals"), as the server sent them.
            capabilities=self._clean(
                {**(announcements.capabilities or {}), **(convert.dump(client.server_capabilities) or {})}
            ),
            instructions=self._clean(client.instructions),
        )

    @property
    def stderr_tail(self) -> str:
        """The last lines the stdio server wrote to stderr (secrets redacted); empty for HTTP."""
        return self._ctx.stdio.stderr_tail() if self._ctx.stdio else ""

    @property
    def pid(self) -> int | None:
        """The stdio server's process id (its process group's too); None for HTTP."""
        process = self._ctx.stdio.process if self._ctx.stdio else None
        return process.pid if process is not None else None

    @property
    def exited(self) -> bool:
        """Whether the stdio server process has exited (never true for HTTP)."""
        return self._ctx.stdio is not None and self._ctx.stdio.returncode is not None

    def forget_history(self) -> None:
        """Drop what the server said so far (stderr, stray stdout, notifications): a warm pool lends the
        connection to a new run, which reports only what the server says during it."""
        self._announcements.notifications.clear()
        if self._ctx.stdio is not None:
            self._ctx.stdio.forget_output()

    @property
    def warnings(self) -> list[str]:
        """Protocol problems that did not stop the connection."""
        stdio = self._ctx.stdio
        if stdio is None or not stdio.noise_count:
            return []
        return [
            f"The server wrote {stdio.noise_count} non-JSON line(s) to stdout (first: {stdio.noise[0]!r}); "
            "stdio servers should write only JSON-RPC messages to stdout and log to stderr."
        ]

    def supports(self, capability: str) -> bool:
        """Whether the server announced `capability` ("tools", "resources", "prompts") in the handshake."""
        return capability in self.info.capabilities

    def saw_notification(self, method: str) -> bool:
        """Whether the server sent a `method` notification on this connection (e.g. a list_changed)."""
        return method in self._announcements.notifications

    @property
    def invalid_tools(self) -> list[InvalidTool]:
        """Tools the last `list_tools()` left out because they are not valid MCP, each with the reason."""
        return list(self._tool_filter.invalid)

    async def list_tools(self) -> list[convert.ToolDict]:
        """The server's valid tools; malformed ones are left out and listed in `invalid_tools`."""
        self._tool_filter.reset()
        tools = await self._paginate("tools/list", lambda cursor: self._client.list_tools(cursor=cursor))
        return self._clean([convert.tool(item) for page in tools for item in page.tools])

    async def list_resources(self) -> list[convert.ResourceDict]:
        pages = await self._paginate("resources/list", lambda cursor: self._client.list_resources(cursor=cursor))
        return self._clean([convert.resource(item) for page in pages for item in page.resources])

    async def list_resource_templates(self) -> list[convert.ResourceTemplateDict]:
        pages = await self._paginate(
            "resources/templates/list", lambda cursor: self._client.list_resource_templates(cursor=cursor)
        )
        return self._clean([convert.resource_template(item) for page in pages for item in page.resource_templates])

    async def list_prompts(self) -> list[convert.PromptDict]:
        pages = await self._paginate("prompts/list", lambda cursor: self._client.list_prompts(cursor=cursor))
        return self._clean([convert.prompt(item) for page in pages for item in page.prompts])

    async def list_evals(self, level: str | None = None) -> server_evals.Listing:
        """The evals the server ships (the evals/list proposal), every page; `level` filters at the source.

        Evals that break the proposal's schema are left out and listed with the reason in `invalid`.
        """
        method = server_evals.LIST_EVALS
        level_filter = {"level": level} if level else {}
        pages = await self._paginate(
            method, lambda cursor: self._raw_page(method, {**level_filter, **({"cursor": cursor} if cursor else {})})
        )
        return self._clean(server_evals.listing([page.result for page in pages]))

    async def _raw_page(self, method: str, params: dict[str, Any]) -> server_evals.RawPage:
        request = mcp_types.Request[dict[str, Any] | None, str](method=method, params=params)
        result = await self._request(method, lambda: self._client.session.send_request(request, _RawResult))
        try:
            return server_evals.RawPage.of(result.model_extra or {})
        except ValueError as exc:
            raise self._ctx.error(ErrorKind.PROTOCOL_ERROR, f"The server's {method} answer is invalid: {exc}.") from exc

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> convert.ToolResultDict:
        """Call one tool. A tool that fails returns isError=True; only transport/protocol failures raise.

        Configured secrets are masked in the result too: it is about to be shown to a model and stored.
        """
        seconds = timeout if timeout is not None else self._ctx.config.request_timeout
        result = await self._request(
            f"the call to tool {name!r}",
            lambda: self._client.call_tool(name, arguments or {}, read_timeout_seconds=seconds),
            seconds=seconds,
        )
        if result.is_error:
            self.had_error = True
        return self._clean(convert.tool_result(result))

    async def read_resource(self, uri: str) -> dict[str, Any]:
        """resources/read as a plain dict ({contents: [...]}); an error answer raises like any failed request."""
        result = await self._request(f"the read of resource {uri!r}", lambda: self._client.read_resource(uri))
        return self._clean(convert.dump(result) or {})

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> dict[str, Any]:
        """prompts/get as a plain dict ({description?, messages: [...]})."""
        result = await self._request(
            f"the get of prompt {name!r}", lambda: self._client.get_prompt(name, arguments or None)
        )
        return self._clean(convert.dump(result) or {})

    @property
    def notifications(self) -> list[str]:
        """The notification methods the server sent on this connection so far, sorted."""
        return sorted(self._announcements.notifications)

    async def raw_request(self, method: str, params: dict[str, Any] | None, *, timeout: float) -> RawAnswer:
        """Send one request as it is and say what came back, never raising: protocol checks (evalhub/checkups)
        need the JSON-RPC error code and a timeout as answers, where the typed methods raise. The SDK still
        stamps what the negotiated protocol requires (headers, `_meta`)."""
        request = mcp_types.Request[dict[str, Any] | None, str](method=method, params=params)
        started = time.monotonic()

        def answer(outcome: Any, **fields: Any) -> RawAnswer:
            return RawAnswer(outcome, round((time.monotonic() - started) * 1000), **self._clean(fields))

        try:
            # A second bound around the SDK's own: a server that swallows the request must not hold us either.
            with anyio.fail_after(timeout + 5):
                result = await self._client.session.send_request(
                    request, _RawResult, request_read_timeout_seconds=timeout
                )
        except MCPError as exc:
            if exc.code == mcp_types.REQUEST_TIMEOUT:
                return answer("timeout", message=f"No answer within {timeout:g} s.")
            if exc.code == mcp_types.CONNECTION_CLOSED:
                return answer("failed", message=exc.message)
            return answer("error", code=exc.code, message=exc.message)
        except TimeoutError:
            return answer("timeout", message=f"No answer within {timeout:g} s.")
        except ValidationError as exc:
            return answer("invalid", message=classify.describe_validation(exc))
        except Exception as exc:  # a transport failure: the check records it and goes on
            leaf = (classify.leaves(exc) or [exc])[0]
            return answer("failed", message=str(leaf) or type(leaf).__name__)
        return answer("result", result=dict(result.model_extra or {}))

    async def _request(self, what: str, call: Callable[[], Awaitable[T]], *, seconds: float | None = None) -> T:
        if self._home is not None and _running_loop() is not self._home:
            # Lent by a warm pool to a run on another loop: the session's streams belong to its own loop.
            future = asyncio.run_coroutine_threadsafe(self._request(what, call, seconds=seconds), self._home)
            return await asyncio.wrap_future(future)
        try:
            return await call()
        except BaseException as exc:
            # Cancelled mid-request too: the server may still be working on it, so it is not lent again.
            self.had_error = True
            if isinstance(exc, McpConnectionError) or not isinstance(exc, Exception):
                raise
            leaf = (classify.leaves(exc) or [exc])[0]
            raise await classify.from_exception(leaf, self._ctx, phase="request", what=what, seconds=seconds) from exc

    async def _paginate(self, method: str, fetch: Callable[[str | None], Awaitable[Page]]) -> list[Page]:
        pages: list[Page] = []
        cursor: str | None = None
        seen: set[str] = set()
        for _ in range(MAX_PAGES):
            page = await self._request(method, functools.partial(fetch, cursor))
            pages.append(page)
            cursor = page.next_cursor
            if cursor is None:
                return pages
            if cursor in seen:
                raise self._ctx.error(
                    ErrorKind.PROTOCOL_ERROR, f"The server's {method} repeated a page cursor, so it would never end."
                )
            seen.add(cursor)
        raise self._ctx.error(ErrorKind.PROTOCOL_ERROR, f"The server's {method} did not end after {MAX_PAGES} pages.")

    def _clean(self, value: T) -> T:
        return redact_json(value, self._ctx.redact)


async def _accept_tool_result(name: str, result: object) -> None:
    return None


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:  # not on asyncio (trio)
        return None


def redact_json(value: T, redact: Redactor) -> T:
    """A copy of a JSON-like value with every string (keys too) redacted."""
    return cast(T, _redact_any(value, redact))


def _redact_any(value: Any, redact: Redactor) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(k) if isinstance(k, str) else k: _redact_any(v, redact) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_any(item, redact) for item in value]
    return value


def _transport(config: ServerConfig, ctx: Context) -> AbstractAsyncContextManager[TransportStreams]:
    if config.transport == "stdio":
        assert ctx.stdio is not None
        return stdio_transport(config, ctx.stdio)
    assert ctx.http is not None
    if config.transport == "sse":
        return sse_transport(config, ctx.http)
    return http_transport(config, ctx.http)


@asynccontextmanager
async def connect(config: ServerConfig) -> AsyncIterator[Connection]:
    """Start or reach the server and complete the MCP handshake within `config.connect_timeout`.

    On exit the session is closed and, for stdio, the server's whole process group is killed: whether the
    block finished, raised, or was cancelled. Raises McpConnectionError for every MCP failure; exceptions
    raised by the caller's own code inside the block come out unchanged (not wrapped in ExceptionGroups).
    """
    redact = Redactor(config.secrets())
    if problems := config.problems():
        raise McpConnectionError(ErrorKind.INVALID_CONFIG, redact(" ".join(problems)))
    stdio = config.transport == "stdio"
    ctx = Context(config, redact, stdio=StdioState(redact) if stdio else None, http=None if stdio else HttpFacts())
    tool_filter = ToolListFilter(redact)
    announcements = Announcements()
    client = Client(
        filtered(_transport(config, ctx), tool_filter, announcements),
        mode=config.protocol_mode,
        read_timeout_seconds=config.request_timeout,
        client_info=CLIENT_INFO,
        # Inspections and runs must see the server as it is now, never a cached listing.
        cache=None,
    )
    connected = False
    body_error: BaseException | None = None
    # A deadline scope around the whole block (not just the handshake) keeps anyio's scopes nested;
    # the deadline is lifted once the handshake is done.
    scope = anyio.CancelScope(deadline=anyio.current_time() + config.connect_timeout)
    try:
        with scope:
            async with client:
                connected = True
                scope.deadline = math.inf
                tool_filter.version = client.protocol_version
                try:
                    yield Connection(client, ctx, tool_filter, announcements)
                except BaseException as exc:
                    body_error = exc
                    raise
    except Exception as exc:  # ExceptionGroup is an Exception; a group of only cancellations is not
        if not connected and scope.cancel_called:
            raise classify.timeout_error(ctx, phase="connect", what="the handshake") from exc
        translated = await _translate(exc, ctx, connected=connected, body_error=body_error)
        if any(translated is leaf for leaf in classify.leaves(exc)) or translated is exc:
            # Already the right exception (the caller's own, or one a Connection method raised): re-raise it
            # as it is, only unwrapped from the SDK's ExceptionGroups.
            raise translated  # noqa: B904
        raise translated from exc
    if not connected:
        # The deadline fired and the scope swallowed the cancellation.
        raise classify.timeout_error(ctx, phase="connect", what="the handshake")


async def _translate(
    exc: BaseException, ctx: Context, *, connected: bool, body_error: BaseException | None
) -> BaseException:
    """The one exception the caller should see for `exc`, which may be a nest of ExceptionGroups."""
    found = classify.leaves(exc)
    for leaf in found:
        if isinstance(leaf, McpConnectionError):
            return leaf
    for leaf in found:
        # The caller's own exception (or KeyboardInterrupt), which the SDK's task groups wrapped.
        if leaf is body_error or not isinstance(leaf, Exception):
            return leaf
    if not found:
        return exc
    phase: classify.Phase = "request" if connected else "connect"
    return await classify.from_exception(found[0], ctx, phase=phase, what="the session" if connected else "start-up")
