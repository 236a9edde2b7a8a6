"""The V8 side of code mode: run a model's program in the scorers' sandbox with `tools.*` bound to a mailbox.

Runs inside the sandbox host process (scorers/sandbox_host.py), like code scorers, through the same engine
(`scorers.sandbox_engine.score`): a fresh context, the same removed globals, time and memory limits, console
capture and error reports. Pure Python + mini-racer: no Django.

Why a mailbox and not mini-racer's `wrap_py_function`: that hands converted JS values to a Python coroutine on
mini-racer's loop and rejects with the Python traceback (host paths) when it fails. Here a tool call only
queues `[id, name, argsJson]` inside V8; the engine's poll (`Bridge.serve`) takes the queue as one JSON string,
asks the worker (`ask`, one JSON line each way through the host's pipe) and answers with JSON text. No Python
callable is reachable from JavaScript, and nothing but strings crosses the boundary, as for scorers.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from scorers.sandbox_engine import score
from scorers.sandbox_limits import SandboxLimits

# The program's code becomes the body of an async function: `await` and `return` work at its top level. The
# opening is on the code's first line so that a syntax error's line number is the code's own.
_OPEN = "async () => { __evalhub_keep(await (async () => {"
_CLOSE = "\n})()); return 0; }"

# Evaluated before the scorer harness (which then removes timers, binary buffers and the rest as for scorers).
_PRELUDE = r"""
(function (toolNames) {
  "use strict";
  const G = globalThis;
  const stringify = JSON.stringify;
  const parseJson = JSON.parse;
  const PromiseFn = Promise;
  const ErrorFn = Error;
  const StringFn = String;
  const defineProperty = Object.defineProperty;
  const create = Object.create;
  let queue = create(null);
  let queued = 0;
  let nextId = 0;
  const waiting = create(null);
  let returned = "undefined";

  function call(name, args) {
    const id = nextId++;
    let argsJson;
    try {
      argsJson = stringify(args === undefined ? {} : args);
    } catch (error) {
      const message = "tools." + name + ": arguments are not JSON: " + StringFn(error && error.message);
      return new PromiseFn((resolve, reject) => reject(new ErrorFn(message)));
    }
    return new PromiseFn((resolve, reject) => {
      waiting[id] = [resolve, reject];
      queue[queued++] = [id, name, argsJson === undefined ? "null" : argsJson];
    });
  }
  const tools = create(null);
  for (let i = 0; i < toolNames.length; i++) {
    const name = toolNames[i];
    defineProperty(tools, name, { value: (args) => call(name, args), enumerable: true });
  }
  defineProperty(G, "tools", { value: tools, enumerable: false });
  defineProperty(G, "__evalhub_take_calls", {
    value: function () {
      let out = "[";
      for (let i = 0; i < queued; i++) out += (i ? "," : "") + stringify(queue[i]);
      queue = create(null);
      queued = 0;
      return out + "]";
    },
  });
  defineProperty(G, "__evalhub_answer", {
    value: function (id, ok, payload) {
      const pair = waiting[id];
      delete waiting[id];
      if (ok) pair[0](parseJson(payload));
      else pair[1](new ErrorFn(payload));
    },
  });
  defineProperty(G, "__evalhub_keep", {
    value: function (value) {
      let text;
      try {
        text = stringify(value);
      } catch (error) {
        text = stringify("[a value JSON.stringify refused: " + StringFn(error && error.message) + "]");
      }
      returned = text === undefined ? "undefined" : text;
    },
  });
  defineProperty(G, "__evalhub_returned", { value: () => returned });
})(TOOL_NAMES);
"""


class _Mailbox:
    """The engine's Bridge: answers the program's queued tool calls, at most `max_calls` of them."""

    def __init__(self, tool_names: list[str], max_calls: int, ask: Callable[[dict[str, Any]], Any]) -> None:
        self.prelude = _PRELUDE.replace("TOOL_NAMES", json.dumps(tool_names))
        self.prefix, self.suffix = _OPEN, _CLOSE
        self.max_calls = max_calls
        self.calls = 0
        self.returned: str | None = None
        self._ask = ask

    def serve(self, racer: Any, timeout: float) -> float:
        outside = 0.0
        v8_used = 0.0
        while True:
            started = time.monotonic()
            taken = racer.eval("__evalhub_take_calls()", timeout_sec=max(timeout - v8_used, 0.001))
            v8_used += time.monotonic() - started
            queued = json.loads(taken) if isinstance(taken, str) else []
            if not queued:
                return outside
            for call_id, name, args_json in queued:  # built by the prelude from its own captured intrinsics
                started = time.monotonic()
                ok, payload = self._answer(str(name), str(args_json))
                outside += time.monotonic() - started
                script = f"__evalhub_answer({json.dumps(call_id)}, {'true' if ok else 'false'}, {json.dumps(payload)})"
                started = time.monotonic()
                # Resolving runs the code's continuation, which may queue the next call: hence the loop.
                racer.eval(script + "; void 0", timeout_sec=max(timeout - v8_used, 0.001))
                v8_used += time.monotonic() - started

    def _answer(self, name: str, args_json: str) -> tuple[bool, str]:
        """(True, the value as JSON) or (False, an error message) for one call."""
        if self.calls >= self.max_calls:
            return False, (
                f"tools.{name}: tool call limit reached — this run_code execution may make at most {self.max_calls} "
                "tool calls (every one counts against the run's max_tool_calls)."
            )
        try:
            args = json.loads(args_json)
        except ValueError:
            args = None
        if not isinstance(args, dict):
            return False, f"tools.{name}: pass the arguments as one object, e.g. tools.{name}({{ … }})."
        self.calls += 1
        answer = self._ask({"name": name, "args": args})
        if isinstance(answer, dict) and answer.get("ok") is True and isinstance(answer.get("value"), str):
            return True, answer["value"]
        message = answer.get("message") if isinstance(answer, dict) else None
        return False, str(message or f"tools.{name} failed.")

    def finish(self, racer: Any) -> None:
        returned = racer.eval("__evalhub_returned()", timeout_sec=0.2)
        self.returned = returned if isinstance(returned, str) else None


def run_program(
    code: str, tool_names: list[str], max_calls: int, limits: SandboxLimits, ask: Callable[[dict[str, Any]], Any]
) -> dict[str, Any]:
    """Run `code` with `tools.<name>(args)` for each of `tool_names`; `ask({"name", "args"})` performs one call
    and returns {"ok": true, "value": JSON text} or {"ok": false, "message": text}.

    Returns the engine's raw outcome (as for a scorer) plus "returnValue" (JSON text, or None when the code
    failed) and "toolCalls" (how many calls were made).
    """
    mailbox = _Mailbox(tool_names, max_calls, ask)
    raw = score(code, "{}", limits, mailbox)
    size = len((mailbox.returned or "").encode("utf-8", "surrogatepass"))
    if size > limits.max_result_bytes:
        mailbox.returned = json.dumps(
            f"[the return value was {size:,} bytes of JSON; at most {limits.max_result_bytes:,} are sent back]"
        )
    return {**raw, "returnValue": mailbox.returned, "toolCalls": mailbox.calls}
