"""One `run_code` call of a code-mode run, as an EvalToolCall record with its nested calls.

The program runs in the scorers' sandbox (`scorers.sandbox.run_program`) on a worker thread, so the run's event
loop stays free; each tool call the program makes is handed back to that loop (`anyio.from_thread.run`), goes
through the run's real MCP connection like a direct call (the agent loop's `call_tool`) and is recorded as a
nested EvalToolCall. Django-free.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import anyio.from_thread
import anyio.to_thread

from evalhub.mcp_client.connection import Connection
from evalhub.model_client.results import ToolCall
from runs.code_mode.typed_api import RUN_CODE
from runs.tool_results import as_model_content
from scorers.sandbox import DEFAULT_LIMITS, ScoringOutcome, run_program

# The scorers' limits (1 s of JavaScript time, 64 MB heap, 100 KB of code, 200 console lines / 32 KB): a
# program only glues tool calls together. Time spent waiting for tools is not counted; the run's own time limit
# bounds it.
RUN_CODE_LIMITS = DEFAULT_LIMITS
MAX_TOOL_CALLS_PER_EXECUTION = 20

CallTool = Callable[[ToolCall, "dict[str, Any] | None", Connection], Awaitable[dict[str, Any]]]


async def execute_run_code(
    call: ToolCall,
    *,
    tools: dict[str, dict[str, Any]],
    conn: Connection,
    call_tool: CallTool,
    max_calls: int = MAX_TOOL_CALLS_PER_EXECUTION,
) -> dict[str, Any]:
    """Run the program of one `run_code` call, letting it make at most `max_calls` tool calls, and return its
    record (see runs/code_mode/__init__.py)."""
    timestamp = int(time.time() * 1000)
    started = time.perf_counter()
    code = (call.arguments or {}).get("code")
    nested: list[dict[str, Any]] = []

    async def nested_call(question: dict[str, Any]) -> dict[str, Any]:
        name, args = str(question.get("name")), question.get("args")
        asked = ToolCall(id=f"{call.id}.{len(nested) + 1}", name=name, arguments=args, raw_arguments="")
        record = await call_tool(asked, tools.get(name), conn)
        nested.append(record)
        return answer_for_program(record)

    if not isinstance(code, str) or not code.strip():
        outcome, returned = None, None
        text = 'run_code needs {"code": "<JavaScript>"}: the body of an async function that calls `tools.*`.'
    else:
        outcome, returned = await anyio.to_thread.run_sync(
            lambda: run_program(
                code,
                tool_names=list(tools),
                max_calls=max_calls,
                answer=lambda question: anyio.from_thread.run(nested_call, question),
                limits=RUN_CODE_LIMITS,
            ),
            abandon_on_cancel=True,
        )
        text = model_text(outcome, returned)
    failed = outcome is None or not outcome.ok
    return {
        "toolName": RUN_CODE,
        "args": {"code": code} if isinstance(code, str) else dict(call.arguments or {}),
        "result": {"content": [{"type": "text", "text": text}], "isError": failed},
        "timestamp": timestamp,
        "durationMs": round((time.perf_counter() - started) * 1000),
        "isError": failed,
        "console": console_lines(outcome) if outcome else [],
        "returnValue": json.loads(returned) if returned is not None and returned != "undefined" else None,
        "nestedCalls": nested,
    }


def answer_for_program(record: dict[str, Any]) -> dict[str, Any]:
    """What `await tools.x(…)` gives the program: the structured result, else the text (parsed when it is JSON);
    a tool error rejects with its text."""
    result = record["result"]
    if result.get("isError"):
        return {"ok": False, "message": f"tools.{record['toolName']}: {as_model_content(result)}"}
    value = result.get("structuredContent")
    if value is None:
        texts = [block.get("text", "") for block in result.get("content", []) if block.get("type") == "text"]
        value = "\n".join(texts) if texts else result.get("content", [])
        if isinstance(value, str):
            with contextlib.suppress(ValueError):
                value = json.loads(value)
    try:
        text = json.dumps(value, allow_nan=False)
    except ValueError:
        # NaN/Infinity are not JSON: the program gets the text the model would have read.
        text = json.dumps(as_model_content(result))
    size, limit = len(text.encode("utf-8", "surrogatepass")), RUN_CODE_LIMITS.max_input_bytes
    if size > limit:
        # Like a scorer's record: what enters the sandbox must fit its heap with room to spare.
        return {
            "ok": False,
            "message": f"tools.{record['toolName']}: its result is {size:,} bytes of JSON; a "
            f"program accepts at most {limit:,} bytes per result.",
        }
    return {"ok": True, "value": text}


def console_lines(outcome: ScoringOutcome) -> list[str]:
    return [line.text if line.level == "log" else f"[{line.level}] {line.text}" for line in outcome.console]


def model_text(outcome: ScoringOutcome, returned: str | None) -> str:
    """What the model reads back: the error (if any), the console and the return value."""
    parts = []
    if not outcome.ok:
        parts.append("Error: " + for_code(outcome.error))
    console = console_lines(outcome)
    if console:
        parts.append("Console:\n" + "\n".join(console))
    if outcome.ok:
        parts.append("Return value: " + (returned if returned is not None else "undefined"))
    return "\n\n".join(parts)


def for_code(message: str) -> str:
    """The sandbox words its errors for scorers; here the model's program is what failed."""
    return message.replace("The scorer", "The code").replace("the scorer", "the code").replace("scorer.js", "code.js")
