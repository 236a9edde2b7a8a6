"""Code mode: the model is offered one tool, `run_code`, and writes a JavaScript program that calls the MCP
server's tools (`await tools.get_weather({ latitude, longitude })`) instead of calling them one by one.

- `typed_api`: the `run_code` tool, whose description is the server's tools as a typed JavaScript API.
- `engine`: the V8 side, run in the scorers' sandbox host (same isolation, time and memory limits).
- `execute`: one `run_code` call → its EvalToolCall record. Every MCP call the program makes goes through the
  run's connection and is a nested EvalToolCall in the record's `nestedCalls`.

The record of a `run_code` call: {toolName: "run_code", args: {code}, result: MCP-like content (console and
return value as text; isError when the program failed), timestamp, durationMs, isError, console: [str],
returnValue, nestedCalls: [EvalToolCall]}. Django-free, like the agent loop that calls it (`dispatch`).
This module stays import-light: the sandbox host imports `engine` through it.
"""

from __future__ import annotations

DIRECT = "direct"
CODE = "code"
MODES = (DIRECT, CODE)
