"""`FaultInjectingConnection`: an MCP `Connection` whose tool calls get the faults a `FaultSchedule` picks.

It wraps the run's real connection, innermost (a cassette recorder wraps outside it, so a cassette records what
the agent saw), and has the same interface: everything but `call_tool` goes straight to the real connection.

What the agent sees of each fault is what EvalHub's agent loop shows the model for a failed call it can act on —
an error result — so the agent's recovery can be watched instead of the run ending at the first fault:
- hang: no answer until the call's request timeout, then the timeout error (the real server is not called);
- slow: the real call, `delay_ms` late (a delay at or past the timeout is a hang);
- error: at once, an isError result with the message, or a JSON-RPC error with its code and message;
- drop: the real call is sent and the server may act on it, but its answer is thrown away and the agent is told
  the connection closed mid-call (the session itself stays usable, as for a client that reconnects);
- wedged: from the call that wedged it, every call hangs until its timeout (nothing resets a run's connection);
- recover_after: its first `failures` calls fail as `fail_as`, then the real tool answers.

Each faulted result carries the fault in `_meta` under FAULT_META; the agent loop moves it onto the tool call's
record as `injectedFault` (`take_injected`), which the verdict, the fault timeline and the trace read.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

import anyio

from evalhub.mcp_client.connection import Connection
from runs.fault_injection.schedule import FaultSchedule, Injection

# The run's phase while an injected fault holds a call: a time limit that strikes then is the harness's doing.
from runs.verdict.rule import INJECTED_PHASE

FAULT_META = "evalhub/injectedFault"


class FaultInjectingConnection:
    def __init__(self, conn: Connection, schedule: FaultSchedule, *, request_timeout: float) -> None:
        self._conn = conn
        self._schedule = schedule
        self._request_timeout = request_timeout
        # The fault of the call in progress: a run's time limit that strikes during it is the harness's doing.
        self.in_flight: tuple[str, Injection] | None = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)

    def as_connection(self) -> Connection:
        """This wrapper where a Connection is expected: it has Connection's interface (the rest is delegated)."""
        return cast(Connection, self)

    @property
    def phase_in_flight(self) -> str:
        """The run's phase while a fault holds a call ("injected fault: hang on search_flights"), else ""."""
        if self.in_flight is None:
            return ""
        tool, injection = self.in_flight
        return f"{INJECTED_PHASE} {injection.effect} on {tool}"

    async def call_tool(
        self, name: str, arguments: dict[str, Any] | None = None, *, timeout: float | None = None
    ) -> dict[str, Any]:
        injection = self._schedule.next(name)
        if injection is None:
            return dict(await self._conn.call_tool(name, arguments, timeout=timeout))
        seconds = timeout if timeout is not None else self._request_timeout
        if injection.effect == "slow" and injection.fault.delay_ms / 1000 >= seconds:
            # The client would give up first: what the agent sees, and what the records say, is a hang.
            injection = replace(injection, effect="hang")
        self.in_flight = (name, injection)
        # Not cleared when cancelled: the pipeline reads it after the run's time limit cut the call off.
        result = await self._injected(injection, name, arguments, seconds)
        self.in_flight = None
        meta = {**(result.get("_meta") or {}), FAULT_META: injection.describe()}
        return {**result, "_meta": meta}

    async def _injected(
        self, injection: Injection, name: str, arguments: dict[str, Any] | None, seconds: float
    ) -> dict[str, Any]:
        fault, effect = injection.fault, injection.effect
        if effect == "hang":
            await anyio.sleep(seconds)
            return _error(
                f"The server did not answer the call to tool {name!r} within the request timeout ({seconds:g} s)."
            )
        if effect == "slow":
            await anyio.sleep(fault.delay_ms / 1000)
            return dict(await self._conn.call_tool(name, arguments, timeout=seconds - fault.delay_ms / 1000))
        if effect == "drop":
            await self._conn.call_tool(name, arguments, timeout=seconds)
            return _error(f"The connection to the server was closed during the call to tool {name!r}; no answer came.")
        if fault.error_as == "jsonrpc":
            # What the MCP SDK reports for a JSON-RPC error answer, as a host shows it to the model.
            return _error(f"MCP error {fault.code}: {fault.message}")
        return _error(fault.message)


def _error(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": True}


def take_injected(result: dict[str, Any]) -> dict[str, Any] | None:
    """The fault injected into `result` (removed from it, so neither the model nor the stored result sees EvalHub's
    marker), or None when the real tool answered."""
    meta = result.get("_meta")
    if not isinstance(meta, dict) or FAULT_META not in meta:
        return None
    rest = {key: value for key, value in meta.items() if key != FAULT_META}
    injected = meta[FAULT_META]
    if rest:
        result["_meta"] = rest
    else:
        del result["_meta"]
    return dict(injected)
