"""A run as the tool statistics read it. Pure: built from a run's recorded fields, no Django."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from runs.code_mode.typed_api import RUN_CODE


@dataclass(frozen=True)
class Call:
    name: str
    args: Mapping[str, Any]
    is_error: bool
    # The model sent arguments that were not a JSON object (the call never reached the server).
    malformed: bool = False


@dataclass(frozen=True)
class RunFacts:
    run_id: int
    scenario: str
    expected: tuple[str, ...]
    calls: tuple[Call, ...]
    # The server's input schema per tool, as the run's tool snapshot recorded it.
    schemas: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    column: str = ""

    @property
    def called(self) -> list[str]:
        return [call.name for call in self.calls]


def run_facts(
    *,
    run_id: int,
    scenario: str,
    expected_tools: Sequence[str],
    all_tool_calls: Sequence[Mapping[str, Any]],
    snapshot_tools: Sequence[Mapping[str, Any]] = (),
    column: str = "",
) -> RunFacts:
    """From a run's fields. A code-mode `run_code` call is not a server tool: the calls its program made (listed
    after it in all_tool_calls) are what count. A call made by invocation level was never executed: its choice
    counts, not its outcome."""
    calls = tuple(
        Call(
            name=str(record.get("toolName", "")),
            args=args if isinstance(args := record.get("args"), dict) else {},
            # A call EvalHub answered itself (an unknown tool, arguments its schema refuses) never reached the server.
            is_error=bool(record.get("isError")) and not record.get("notExecuted") and not record.get("refused"),
            malformed="rawArguments" in record,
        )
        for record in all_tool_calls
        if not (record.get("toolName") == RUN_CODE and "nestedCalls" in record)
    )
    schemas = {
        str(tool["name"]): tool.get("inputSchema") or {}
        for tool in snapshot_tools
        if isinstance(tool, Mapping) and "name" in tool
    }
    return RunFacts(
        run_id=run_id,
        scenario=scenario,
        expected=tuple(dict.fromkeys(expected_tools)),
        calls=calls,
        schemas=schemas,
        column=column,
    )
