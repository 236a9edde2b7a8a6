"""Direct tool tests: the execution level by hand. Call one tool of a server with given arguments, now, and see
what it answered, how long it took, whether it is an error and whether its structuredContent fits its outputSchema.
A test worth keeping becomes an execution-level scenario (`tool_test_save`)."""

from __future__ import annotations

import time
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from evalhub.mcp_client.sync import connect_sync
from evalhub.providers.models import offline_provider
from evalhub.scenarios.models import Scenario, Tag
from evalhub.server_evals.mapping import content_equals, execution_prompt
from evalhub.servers.models import McpServer
from runs.record_limits import TOOL_RESULT_BYTES, cap_json
from runs.tool_results import check_output_schema

# The tests' own tag, so they can be run (or left out) together.
TAG = "tool-tests"


class UnknownTool(ValueError):
    """The server does not offer the tool asked for; the message lists the ones it does."""


def tool_test(*, server: McpServer, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Connect, call `tool` once with `arguments`, disconnect. Raises McpConnectionError, SecretUnavailable (from
    the server's config) or UnknownTool; a tool that fails is a result with is_error, not an exception.

    The result is kept within a run's cap for one tool result (runs.record_limits), as a run would record it:
    `truncated` then holds the full size and SHA-256. The schema check and is_error read the whole result."""
    config = server.to_config()
    with connect_sync(config) as conn:
        definitions = {definition["name"]: dict(definition) for definition in conn.list_tools()}
        if tool not in definitions:
            offered = ", ".join(sorted(definitions)) or "none"
            raise UnknownTool(f"“{server.name}” has no tool {tool!r}; its tools: {offered}.")
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
