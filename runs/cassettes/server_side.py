"""Between the agent and its MCP server: a connection that records every exchange, and one that answers from a
cassette, alone (offline) or checking the live server's answers against it.

Both have the methods of evalhub.mcp_client.connection.Connection that runs use (list_tools, call_tool,
read_resource, get_prompt); anything else is the live connection's. Django-free.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from evalhub.mcp_client.errors import ErrorKind, McpConnectionError
from runs.cassettes.matching import AGENT, SERVER, CassetteMiss, first_difference
from runs.cassettes.tape import MCP, RESPONSE_BYTES, Exchange, Tape

Call = Callable[[], Awaitable[Any]]


class _Interposed:
    """The methods runs call, each turned into one exchange (`_exchange`) with its method, params and step name."""

    def __init__(self, live: Any) -> None:
        self._live = live

    def __getattr__(self, name: str) -> Any:
        if self._live is None:
            raise AttributeError(f"A replay without its server has no {name!r}.")
        return getattr(self._live, name)

    async def list_tools(self) -> list[dict[str, Any]]:
        result: list[dict[str, Any]] = await self._exchange(
            "list tools", "tools/list", {}, lambda: self._live.list_tools()
        )
        return result

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> dict[str, Any]:
        params = {"name": name, "arguments": arguments or {}}
        result: dict[str, Any] = await self._exchange(
            f"tool call {name}", "tools/call", params, lambda: self._live.call_tool(name, arguments, timeout=timeout)
        )
        return result

    async def read_resource(self, uri: str) -> dict[str, Any]:
        result: dict[str, Any] = await self._exchange(
            "resource read", "resources/read", {"uri": uri}, lambda: self._live.read_resource(uri)
        )
        return result

    async def get_prompt(self, name: str, arguments: dict[str, str] | None = None) -> dict[str, Any]:
        params = {"name": name, "arguments": arguments or {}}
        result: dict[str, Any] = await self._exchange(
            "prompt get", "prompts/get", params, lambda: self._live.get_prompt(name, arguments)
        )
        return result

    async def _exchange(self, step: str, method: str, params: dict[str, Any], call: Call) -> Any:
        raise NotImplementedError


class RecordingConnection(_Interposed):
    """`inner`'s answers, each recorded on `tape` with how long it took."""

    def __init__(self, inner: Any, tape: Tape) -> None:
        super().__init__(inner)
        self._tape = tape

    async def _exchange(self, step: str, method: str, params: dict[str, Any], call: Call) -> Any:
        started = time.perf_counter()
        request = {"method": method, "params": params}
        try:
            result = await call()
        except McpConnectionError as exc:
            self._tape.add(MCP, request, error=error_json(exc), ms=_since(started))
            raise
        self._tape.add(MCP, request, response={"result": result}, ms=_since(started))
        return result


class CassetteConnection(_Interposed):
    """Answers from `source` in order, each after checking its request is the recorded one.

    With a `live` connection, the request goes to the server too and its answer must be the recorded one: a
    different answer is the server's change (a cassette miss attributed to the server). A fork goes live at the
    `live_from`-th exchange (0-based); the `replace`-th is answered with `replacement` instead of the server.
    """

    def __init__(
        self,
        source: Tape,
        *,
        normal: Callable[..., tuple[Any, bool]],
        live: Any = None,
        live_from: int | None = None,
        replace: int | None = None,
        replacement: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(live)
        self._source, self._normal = source, normal
        self._live_from, self._replace, self._replacement = live_from, replace, replacement
        self.calls = 0

    async def _exchange(self, step: str, method: str, params: dict[str, Any], call: Call) -> Any:
        index = self.calls
        self.calls += 1
        if index == self._replace:
            return self._replacement
        if self._live_from is not None and index >= self._live_from:
            return await call()
        what = f"{method} #{index + 1}"
        recorded = self._recorded(step, what, index, {"method": method, "params": params})
        if self._live is None:
            if recorded.error is not None:
                raise error_from(recorded.error)
            assert recorded.response is not None
            return recorded.response["result"]
        try:
            result = await call()
        except McpConnectionError as exc:
            self._check_answer(step, what, recorded, error=error_json(exc))
            raise
        self._check_answer(step, what, recorded, response={"result": result})
        return result

    def _recorded(self, step: str, what: str, index: int, request: dict[str, Any]) -> Exchange:
        recorded = self._source.at(MCP, index)
        if recorded is None:
            side = "" if self._source.truncated else AGENT
            made = len(self._source.exchanges[MCP])
            note = "the cassette was cut before it" if side == "" else f"the recorded run made only {made}"
            raise CassetteMiss(step=step, side=side, what=what, difference=None, note=note + ".")
        difference = first_difference(recorded.request, self._normal(request)[0])
        if difference is not None:
            raise CassetteMiss(step=step, side=AGENT, what=what, difference=difference)
        if recorded.cut:
            raise CassetteMiss(step=step, side="", what=what, difference=None, note="its answer was too big to keep.")
        return recorded

    def _check_answer(self, step: str, what: str, recorded: Exchange, **answer: dict[str, Any]) -> None:
        expected = {"response": recorded.response} if recorded.error is None else {"error": recorded.error}
        actual = {key: self._normal(value, RESPONSE_BYTES)[0] for key, value in answer.items()}
        difference = first_difference(expected, actual)
        if difference is not None:
            raise CassetteMiss(step=step, side=SERVER, what=f"{what} answer", difference=difference)


def error_json(exc: McpConnectionError) -> dict[str, Any]:
    return {"kind": exc.kind.value, "message": exc.message}


def error_from(data: dict[str, Any]) -> McpConnectionError:
    return McpConnectionError(ErrorKind(data["kind"]), data["message"])


def _since(started: float) -> float:
    return (time.perf_counter() - started) * 1000
