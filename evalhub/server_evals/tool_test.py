"""Direct tool tests: the execution level by hand. Call one tool of a server with given arguments, now, and see
what it answered, how long it took, whether it is an error and whether its structuredContent fits its outputSchema.
A test worth keeping becomes an execution-level scenario (`tool_test_save`).

A call may take as long as the server's connect timeout (up to 600 s) plus its request timeout, so pages and the
API run it on the web process's bounded background pool (evalhub/background.py, within the caller's share), wait
EVALHUB_WEB_WAIT_SECONDS for it, and otherwise poll its state, kept in the shared cache under a random id that only
the caller may read.
"""

from __future__ import annotations

import re
import secrets
import time
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.cache import cache

from evalhub import background
from evalhub.mcp_client import McpConnectionError, ServerConfig
from evalhub.mcp_client.sync import connect_sync
from evalhub.providers.models import offline_provider
from evalhub.scenarios.models import Scenario, Tag
from evalhub.server_evals.destructive import looks_destructive
from evalhub.server_evals.mapping import content_equals, execution_prompt
from evalhub.server_evals.services import SideEffectsUnacknowledged
from evalhub.servers.models import McpServer
from evalhub.vault import SecretUnavailable
from runs.record_limits import TOOL_RESULT_BYTES, cap_json
from runs.tool_results import check_output_schema

# The tests' own tag, so they can be run (or left out) together.
TAG = "tool-tests"
# How long an ended test's state stays readable; a running one's lasts as long as its call can, plus this.
KEPT_SECONDS = 3600
# What secrets.token_urlsafe(16) gives: anything else is not an id of ours, and never reaches the cache.
TEST_ID = re.compile(r"[A-Za-z0-9_-]{22}")


class UnknownTool(ValueError):
    """The server does not offer the tool asked for; the message lists the ones it does."""


def _call(
    config: ServerConfig,
    name: str,
    tool: str,
    arguments: dict[str, Any],
    unacknowledged: SideEffectsUnacknowledged | None,
) -> dict[str, Any]:
    """Connect, call `tool` once with `arguments`, disconnect; no database access (it runs on a pool thread).
    Raises McpConnectionError, UnknownTool, or `unacknowledged` (the server's side effects were not acknowledged)
    when the tool looks destructive; a tool that fails is a result with is_error, not an exception.

    The result is kept within a run's cap for one tool result (runs.record_limits), as a run would record it:
    `truncated` then holds the full size and SHA-256. The schema check and is_error read the whole result."""
    with connect_sync(config) as conn:
        definitions = {definition["name"]: dict(definition) for definition in conn.list_tools()}
        if tool not in definitions:
            offered = ", ".join(sorted(definitions)) or "none"
            raise UnknownTool(f"“{name}” has no tool {tool!r}; its tools: {offered}.")
        if unacknowledged is not None and looks_destructive(definitions[tool]):
            raise unacknowledged
        started = time.perf_counter()
        result = dict(conn.call_tool(tool, arguments))
        duration_ms = round((time.perf_counter() - started) * 1000)
    capped = cap_json(result, TOOL_RESULT_BYTES)
    # A result too wide to keep its shape is cut to the head of its JSON text: shown as one text block.
    kept = capped.value if isinstance(capped.value, dict) else {"content": [{"type": "text", "text": capped.value}]}
    return {
        "tool": tool,
        "arguments": arguments,
        "result": kept,
        "truncated": {"result": capped.cut} if capped.cut else None,
        "is_error": bool(result.get("isError")),
        "duration_ms": duration_ms,
        "schema_validation": check_output_schema(definitions[tool], result),
    }


def tool_test_in_background(
    *,
    server: McpServer,
    tool: str,
    arguments: dict[str, Any],
    user: AbstractBaseUser | AnonymousUser,
    wait: float,
) -> dict[str, Any]:
    """`tool_test` on the background pool, waiting at most `wait` seconds. Its state: {"id", "status": "running"}
    while it goes on (read it again with `tool_test_state`), {"id", "status": "done", "tested": …}, or
    {"id", "status": "failed", "kind", "message", "stderr_tail"} (kind "unknown_tool" for a tool the server lacks,
    "side_effects" for a destructive-looking tool of a server whose owner has not acknowledged side effects).
    Raises background.Busy when the pool, or the user's share of it, is full."""
    test_id = secrets.token_urlsafe(16)
    key, owner = _key(test_id), user.pk
    try:
        config = server.to_config()  # here: it reads the database, the pool thread does not
    except SecretUnavailable as exc:
        return _public(_state(test_id, owner, background.Outcome(error=exc)))
    running = {"id": test_id, "status": "running", "owner": owner, "tool": tool}
    # Worded here, where the database is at hand: the pool thread only raises it (the tool is known there).
    unacknowledged = None if server.side_effects_acknowledged_at else SideEffectsUnacknowledged(server, tool=tool)
    lasts = server.connect_timeout + server.request_timeout + KEPT_SECONDS
    cache.set(key, running, lasts)

    def record_late(outcome: background.Outcome[dict[str, Any]]) -> None:
        cache.set(key, _state(test_id, owner, outcome), KEPT_SECONDS)

    def call() -> dict[str, Any]:
        return _call(config, server.name, tool, arguments, unacknowledged)

    try:
        outcome = background.run_bounded(call, wait=wait, late=record_late, owner=owner, stdio=server.is_stdio)
    except background.Busy:
        cache.delete(key)
        raise
    if outcome is None:
        return _public(running)
    state = _state(test_id, owner, outcome)
    cache.delete(key)  # answered now: nothing to poll
    return _public(state)


def tool_test_state(*, test_id: str, user: AbstractBaseUser | AnonymousUser) -> dict[str, Any] | None:
    """A background test's state as `tool_test_in_background` gives it; None when it is unknown, has expired, or
    is someone else's (their arguments and result are theirs)."""
    state = cache.get(_key(test_id)) if TEST_ID.fullmatch(test_id) else None
    if not isinstance(state, dict) or state.get("owner") != user.pk:
        return None
    return _public(state)


def _key(test_id: str) -> str:
    return f"evalhub:tool-test:{test_id}"


def _public(state: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in state.items() if name != "owner"}


def _state(test_id: str, owner: object, outcome: background.Outcome[dict[str, Any]]) -> dict[str, Any]:
    try:
        tested = outcome.get()
    except (McpConnectionError, SecretUnavailable, UnknownTool, SideEffectsUnacknowledged) as exc:
        if isinstance(exc, McpConnectionError):
            kind, message, stderr_tail = exc.kind.value, exc.message, exc.stderr_tail
        else:
            kind = {UnknownTool: "unknown_tool", SideEffectsUnacknowledged: "side_effects"}.get(
                type(exc), "secret_unavailable"
            )
            message, stderr_tail = str(exc), ""
        failed: dict[str, Any] = {"kind": kind, "message": message, "stderr_tail": stderr_tail}
        if isinstance(exc, SideEffectsUnacknowledged):
            failed["details"] = exc.details
        return {"id": test_id, "status": "failed", "owner": owner, **failed}
    return {"id": test_id, "status": "done", "owner": owner, "tested": tested}


def tool_test_save(
    *,
    server: McpServer,
    tool: str,
    arguments: dict[str, Any],
    result: dict[str, Any],
    name: str,
    user: AbstractBaseUser | AnonymousUser,
) -> Scenario:
    """An execution-level scenario that calls `tool` with `arguments` and expects the content it answered."""
    author = user if isinstance(user, get_user_model()) else None
    provider = offline_provider()
    scenario = Scenario.objects.create(
        name=name,
        description=f"Saved from a direct test of {tool} on {server.name}.",
        level=Scenario.Level.EXECUTION,
        tool_call={"tool": tool, "arguments": arguments},
        prompt=execution_prompt(tool, arguments),
        server=server,
        provider=provider,
        model=provider.model_names[0],
        max_turns=1,
        expectations=[
            content_equals(tool, result.get("content", []), f"{tool} answers as it did when the test was saved")
        ],
        created_by=author,
    )
    scenario.tags.add(Tag.objects.get_or_create(name=TAG)[0], Tag.objects.get_or_create(name="execution")[0])
    return scenario
