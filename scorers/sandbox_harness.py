"""The JavaScript that runs inside every fresh V8 context before (and around) a code scorer.

It is one script, evaluated by `sandbox_engine`, whose last expression calls the harness with
`(limits, source, inputJson, declaredName)` and evaluates to the outcome document: a JSON string built by hand
from primitives, so nothing the scorer did to `Object.prototype`, `Array.prototype` or `JSON` can change it.
Python reads it again later with `__evalhub_outcome()` when the scorer returned a promise.

Outcome document: {"state": "ok"|"pending"|"error"|"syntax", "kind": "exception"|"not_a_function"|
"invalid_result"|"", "detail": str, "valueType": str, "nonError": bool, "stack": str, "score": number|null,
"dropped": int, "console": [[level, text, cut], ...]}.
"""

from __future__ import annotations

# Globals that must not exist for a scorer. mini-racer declares setTimeout/clearTimeout/__timer_manager with
# `var` (not deletable: they are set to undefined) and a `__TimerManager` class binding.
# - Binary buffers (ArrayBuffer, typed arrays, WebAssembly memory) live outside the V8 heap, so the hard
#   memory limit would not see them: a scorer could allocate gigabytes.
# - Atomics.waitAsync is a timer and Atomics.wait blocks; FinalizationRegistry callbacks are the last source
#   of deferred work. Without them, once the microtasks have run, a pending promise can never settle.
REMOVED_GLOBALS = (
    "WebAssembly",
    "SharedArrayBuffer",
    "ArrayBuffer",
    "DataView",
    "Atomics",
    "FinalizationRegistry",
    "Int8Array",
    "Uint8Array",
    "Uint8ClampedArray",
    "Int16Array",
    "Uint16Array",
    "Int32Array",
    "Uint32Array",
    "Float16Array",
    "Float32Array",
    "Float64Array",
    "BigInt64Array",
    "BigUint64Array",
)

HARNESS = r"""
if (typeof __TimerManager !== "undefined") __TimerManager = undefined;
(function (limits, source, inputJson, declaredName) {
  "use strict";
  // Intrinsics are captured before any scorer code runs; the scorer may replace the globals afterwards.
  const G = globalThis;
  const apply = Reflect.apply;
  const stringify = JSON.stringify;
  const parseJson = JSON.parse;
  const StringFn = String;
  const ErrorFn = Error;
  const SyntaxErrorFn = SyntaxError;
  const PromiseFn = Promise;
  const promiseResolve = Promise.resolve;
  const promiseThen = Promise.prototype.then;
  const strSlice = String.prototype.slice;
  const strIndexOf = String.prototype.indexOf;
  const isArray = Array.isArray;
  const defineProperty = Object.defineProperty;
  const indirectEval = G.eval;

  const slice = (text, start, end) => apply(strSlice, text, [start, end]);
  const contains = (text, part) => apply(strIndexOf, text, [part]) !== -1;
  const capped = (text, size) => (text.length > size ? slice(text, 0, size) + "\u2026" : text);
  const quote = (text) => stringify(StringFn(text));
  // Define, not assign: a setter the scorer put on Array.prototype must not see our data.
  const append = (list, item) =>
    defineProperty(list, list.length, { value: item, writable: true, enumerable: true, configurable: true });

  G.setTimeout = undefined;
  G.clearTimeout = undefined;
  G.__timer_manager = undefined;
  const removed = REMOVED_GLOBALS;
  for (let i = 0; i < removed.length; i++) delete G[removed[i]];

  // --- console: captured, capped ---
  const lines = [];
  let used = 0;
  let dropped = 0;

  function typeName(value) {
    if (value === null) return "null";
    let array = false;
    try {
      array = isArray(value);
    } catch (error) {}
    return array ? "array" : typeof value;
  }

  function describe(value) {
    switch (typeof value) {
      case "string":
        return value;
      case "undefined":
        return "undefined";
      case "function":
        return "[Function]";
      case "number":
      case "boolean":
      case "bigint":
      case "symbol":
        return StringFn(value);
    }
    if (value === null) return "null";
    if (value instanceof ErrorFn) {
      const stack = value.stack;
      return typeof stack === "string" ? stack : StringFn(value.name) + ": " + StringFn(value.message);
    }
    let text;
    try {
      text = stringify(value);
    } catch (error) {
      return "[object that JSON.stringify refused: " + StringFn(error && error.message) + "]";
    }
    return text === undefined ? StringFn(value) : text;
  }

  function record(level, args) {
    if (lines.length >= limits.maxLines || used >= limits.maxChars) {
      dropped++;
      return;
    }
    let line = "";
    for (let i = 0; i < args.length && line.length <= limits.maxChars; i++) {
      let part;
      try {
        part = describe(args[i]);
      } catch (error) {
        part = "[value that cannot be printed]";
      }
      line = i === 0 ? part : line + " " + part;
    }
    const room = limits.maxChars - used;
    let cut = false;
    if (line.length > room) {
      line = slice(line, 0, room);
      cut = true;
    }
    used += line.length;
    append(lines, [level, line, cut]);
  }

  const logger = (level) =>
    function (...args) {
      record(level, args);
    };
  const noop = function () {};
  G.console = {
    log: logger("log"),
    info: logger("info"),
    warn: logger("warn"),
    error: logger("error"),
    debug: logger("log"),
    trace: logger("log"),
    dir: logger("log"),
    table: logger("log"),
    assert(condition, ...args) {
      if (condition) return;
      const all = ["Assertion failed" + (args.length ? ":" : "")];
      for (let i = 0; i < args.length; i++) append(all, args[i]);
      record("error", all);
    },
    group: noop,
    groupCollapsed: noop,
    groupEnd: noop,
    time: noop,
    timeEnd: noop,
    timeLog: noop,
    count: noop,
    countReset: noop,
    clear: noop,
  };

  // --- the outcome ---
  let state = "pending";
  let kind = "";
  let detail = "";
  let valueType = "";
  let nonError = false;
  let stack = "";
  let score = null;

  function snapshot() {
    let out =
      '{"state":' + quote(state) + ',"kind":' + quote(kind) + ',"detail":' + quote(detail) +
      ',"valueType":' + quote(valueType) + ',"nonError":' + (nonError ? "true" : "false") +
      ',"stack":' + quote(stack) + ',"score":' + (state === "ok" ? stringify(score) : "null") +
      ',"dropped":' + stringify(dropped) + ',"console":[';
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      const cut = line[2] ? "true" : "false";
      out += (i === 0 ? "" : ",") + "[" + quote(line[0]) + "," + quote(line[1]) + "," + cut + "]";
    }
    return out + "]}";
  }
  defineProperty(G, "__evalhub_outcome", { value: snapshot });

  function fail(errorKind, error) {
    if (state !== "pending") return;
    state = "error";
    kind = errorKind;
    try {
      if (error instanceof ErrorFn) {
        detail = capped(StringFn(error.name) + ": " + StringFn(error.message), limits.maxMessageChars);
        const trace = error.stack;
        stack = typeof trace === "string" ? capped(trace, limits.maxMessageChars) : "";
      } else {
        nonError = true;
        valueType = typeName(error);
        detail = capped(typeof error === "string" ? stringify(error) : describe(error), limits.maxMessageChars);
      }
    } catch (inner) {
      detail = "(the thrown value could not be described)";
    }
  }

  function describeValue(value, asResult) {
    valueType = typeName(value);
    if (typeof value === "number" && asResult) {
      if (value !== value) valueType = "nan";
      else if (value === Infinity || value === -Infinity) valueType = "infinity";
      else valueType = "out_of_range";
      return StringFn(value);
    }
    if (typeof value === "string") return stringify(capped(value, 80));
    if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return StringFn(value);
    return "";
  }

  function settle(value) {
    if (state !== "pending") return;
    // NaN fails both comparisons.
    if (typeof value === "number" && value >= 0 && value <= 1) {
      state = "ok";
      score = value;
      return;
    }
    state = "error";
    kind = "invalid_result";
    detail = describeValue(value, true);
  }

  const input = parseJson(inputJson);
  let scorer;
  try {
    scorer = indirectEval(source);
    if (typeof scorer !== "function" && declaredName) scorer = G[declaredName];
  } catch (error) {
    let trace = "";
    try {
      trace = StringFn(error.stack);
    } catch (inner) {}
    // A parse error has no frame in scorer.js; a SyntaxError thrown by running code (JSON.parse) has.
    if (error instanceof SyntaxErrorFn && !contains(trace, "scorer.js")) {
      state = "syntax";
      detail = capped(StringFn(error.message), limits.maxMessageChars);
      return snapshot();
    }
    fail("exception", error);
    return snapshot();
  }
  if (typeof scorer !== "function") {
    state = "error";
    kind = "not_a_function";
    detail = describeValue(scorer, false);
    return snapshot();
  }

  let result;
  try {
    result = scorer(input);
  } catch (error) {
    fail("exception", error);
    return snapshot();
  }
  let then;
  if (result !== null && (typeof result === "object" || typeof result === "function")) {
    try {
      then = result.then;
    } catch (error) {
      fail("exception", error);
      return snapshot();
    }
  }
  if (typeof then === "function") {
    // Like `await`: Python reads the outcome again after the microtasks have run.
    try {
      apply(promiseThen, apply(promiseResolve, PromiseFn, [result]), [settle, (error) => fail("exception", error)]);
    } catch (error) {
      fail("exception", error);
    }
  } else {
    settle(result);
  }
  return snapshot();
})
""".replace("REMOVED_GLOBALS", repr(list(REMOVED_GLOBALS)).replace("'", '"'))
