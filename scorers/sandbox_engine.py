"""The V8 side of the code-scorer sandbox: one fresh mini-racer context per scoring, with limits.

Runs inside the sandbox host process (`scorers.sandbox_host`): V8 can abort its whole process on some inputs
(`"x".repeat(2**28).split("")` is a fatal "invalid size" error; an allocation burst can reach V8's own heap
limit before the hard memory limit sees it), so it never runs inside the web or worker process. Pure Python +
mini-racer: no Django.

How each limit is enforced (see `SandboxLimits`):
- time: every `eval` gets the remaining wall-clock budget; mini-racer then terminates V8 execution. An async
  scorer is started by one eval and its outcome read by another: V8 runs the microtasks between the two
  (mini-racer's message pump performs a microtask checkpoint after each task), so an endless microtask chain
  makes the read time out, and a promise still pending is polled until the deadline. There are no timers,
  so the deadline is the only way a pending promise ends.
- memory: mini-racer's hard memory limit (a GC epilogue callback that terminates execution when the used heap
  passes it). Binary buffers are removed because they live outside the heap (see `sandbox_harness`).
- data crosses only as JSON strings: the record goes in as a string literal parsed in V8, the outcome comes
  back as a string the harness builds by hand; no JS object handle ever reaches Python.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from scorers.sandbox_harness import HARNESS
from scorers.sandbox_limits import LEVELS, ErrorKind, SandboxLimits
from scorers.sandbox_messages import described_value, exception_message, memory_message

_SOURCE_URL = "\n//# sourceURL=scorer.js"
_ANONYMOUS_FUNCTION = re.compile(r"(async\s+)?function\s*\*?\s*\(")
_NAMED_FUNCTION = re.compile(r"(async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)\s*\(")
_LEADING_TRIVIA = re.compile(r"(\s+|//[^\n]*|/\*.*?\*/)*", re.DOTALL)
_PARSE_ERROR_HEAD = re.compile(r"^<anonymous>:(\d+): (.*)$")
# The line terminators of JavaScript source.
_LINE_BREAK = re.compile(r"\r\n|[\n\r\u2028\u2029]")
# Frames of the harness script ("<anonymous>:231:14") and of the eval that runs the scorer's code.
_HARNESS_FRAME = re.compile(
    r"\n[ \t]+at (?:[^\n]*\()?<anonymous>:\d+:\d+\)?(?=\n|$)|\n[ \t]+at eval \(<anonymous>\)(?=\n|$)"
)
# After a stop, reading the console back gets a short budget of its own.
_SALVAGE_SECONDS = 0.2


class _BadDocument(Exception):
    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


# --- the event loop mini-racer runs its calls on ---

_loop_lock = threading.Lock()
_loop: asyncio.AbstractEventLoop | None = None
_loop_pid = 0


def _event_loop() -> asyncio.AbstractEventLoop:
    """One loop thread per process. Passing it explicitly keeps mini-racer from using a caller's running loop
    (where it refuses timeouts)."""
    global _loop, _loop_pid
    with _loop_lock:
        if _loop is None or _loop_pid != os.getpid():
            loop = asyncio.new_event_loop()
            threading.Thread(target=loop.run_forever, name="mini-racer-loop", daemon=True).start()
            _loop, _loop_pid = loop, os.getpid()
        return _loop


@contextmanager
def _context(limits: SandboxLimits) -> Iterator[Any]:
    from py_mini_racer import mini_racer

    with mini_racer(event_loop=_event_loop()) as racer:
        racer.set_hard_memory_limit(limits.max_memory_bytes)
        yield racer


def warm_up() -> None:
    """Initialise V8 (about 0.1 s, once per process)."""
    with _context(SandboxLimits()) as racer:
        racer.eval("1")


# --- scoring ---


@dataclass(frozen=True)
class _Form:
    """How the source is evaluated: an anonymous `function (…) {…}` is not a valid statement, so it gets a
    `0, ` prefix; a lone named declaration evaluates to nothing, so the function is looked up by name."""

    prefix: str = ""
    declared_name: str = ""


def _form(code: str) -> _Form:
    start = _LEADING_TRIVIA.match(code)
    rest = code[start.end() if start else 0 :]
    if _ANONYMOUS_FUNCTION.match(rest):
        return _Form(prefix="0, ")
    named = _NAMED_FUNCTION.match(rest)
    return _Form(declared_name=named.group(2)) if named else _Form()


class Bridge(Protocol):
    """What code mode (runs/code_mode) adds to a sandboxed evaluation: a script run before the harness, work done
    between two reads of a pending outcome (answering the code's tool calls) and a last read once it settled.
    It speaks to V8 only through `racer.eval` of JSON text, like the rest of this module."""

    prelude: str
    # The code is evaluated as prefix + code + suffix (code mode wraps a program's body in an async function).
    prefix: str
    suffix: str

    def serve(self, racer: Any, timeout: float) -> float:
        """Answer what the code asked for; return the seconds spent outside V8 (not charged to the code)."""
        ...

    def finish(self, racer: Any) -> None: ...


def score(code: str, input_json: str, limits: SandboxLimits, bridge: Bridge | None = None) -> dict[str, Any]:
    """Run one scorer on one record (`input_json` = {input, expected, output} as JSON) in a fresh context.

    Returns the raw outcome that `scorers.sandbox` turns into a ScoringOutcome: status, score, error_kind,
    error, line, column, console [[level, text, cut]], dropped, console_note.
    """
    from py_mini_racer import JSEvalException, JSOOMException, JSTimeoutException

    form = _form(code) if bridge is None else _Form(prefix=bridge.prefix)
    suffix = bridge.suffix if bridge else ""
    js_limits = {
        "maxLines": limits.max_console_lines,
        "maxChars": limits.max_console_bytes,
        "maxMessageChars": limits.max_message_chars,
    }
    arguments = [js_limits, form.prefix + code + suffix + _SOURCE_URL, input_json, form.declared_name]
    # ensure_ascii: the script is plain ASCII, so lone surrogates in the record cannot break its UTF-8 encoding.
    prelude = bridge.prelude if bridge else ""
    script = prelude + HARNESS + "(" + ",".join(json.dumps(argument) for argument in arguments) + ")"
    timeout = limits.timeout_seconds
    with _context(limits) as racer:
        deadline = time.monotonic() + timeout
        try:
            document = _read(racer.eval(script, timeout_sec=timeout), limits)
        except JSTimeoutException:
            return _stopped(
                racer,
                limits,
                ErrorKind.TIMEOUT,
                f"Timed out after {timeout:g} s: the scorer was still running (an endless loop?).",
            )
        except JSOOMException:
            return _stopped(racer, limits, ErrorKind.MEMORY, memory_message(limits))
        except JSEvalException as error:
            if racer.was_hard_memory_limit_reached():
                return _stopped(racer, limits, ErrorKind.MEMORY, memory_message(limits))
            # Something escaped the harness's own try/catch, e.g. a stack overflow inside it.
            return _errored(ErrorKind.EXCEPTION, "The scorer failed: " + _first_lines(str(error), 3))
        except _BadDocument as bad:
            return _errored(bad.kind, bad.message)

        if document["state"] == "syntax":
            return _syntax_error(racer, form.prefix + code + suffix, form.prefix, document, limits)

        pause = 0.001
        first = True
        while document["state"] == "pending":
            if racer.was_hard_memory_limit_reached():
                # The limit terminated a microtask checkpoint: the promise will never settle now.
                return _stopped(racer, limits, ErrorKind.MEMORY, memory_message(limits), document)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return _errored(
                    ErrorKind.TIMEOUT,
                    f"Timed out after {timeout:g} s: the scorer's promise never settled — it awaits something that "
                    "never resolves (there are no timers, network or files in the sandbox).",
                    document,
                )
            if not first:
                time.sleep(min(pause, remaining))
                pause = min(pause * 2, 0.05)
                remaining = max(deadline - time.monotonic(), 0.001)
            first = False
            try:
                if bridge is not None and (outside := bridge.serve(racer, remaining)) > 0:
                    # Time spent waiting for the code's tool calls is not the code's own running time.
                    deadline += outside
                    remaining, pause = max(deadline - time.monotonic(), 0.001), 0.001
                document = _read(racer.eval("__evalhub_outcome()", timeout_sec=remaining), limits)
            except JSTimeoutException:
                # The isolate is still busy with microtasks: reading the console again would wait behind them.
                return _errored(
                    ErrorKind.TIMEOUT,
                    f"Timed out after {timeout:g} s: the scorer's promise callbacks never stopped running "
                    "(an endless chain of await/then?).",
                    document,
                    console_note="Console output after the scorer's first await is not available.",
                )
            except JSOOMException:
                return _stopped(racer, limits, ErrorKind.MEMORY, memory_message(limits), document)
            except JSEvalException as error:
                return _errored(ErrorKind.EXCEPTION, "The scorer failed: " + _first_lines(str(error), 3), document)
            except _BadDocument as bad:
                return _errored(bad.kind, bad.message)
        if bridge is not None and document["state"] == "ok":
            bridge.finish(racer)
        return _finished(document, limits)


def _read(raw: Any, limits: SandboxLimits) -> dict[str, Any]:
    """The outcome document from V8, checked: it is the only thing that crosses the boundary."""
    if not isinstance(raw, str):
        raise _BadDocument(ErrorKind.SANDBOX_ERROR, f"The sandbox returned {type(raw).__name__}, not its outcome.")
    size = len(raw.encode("utf-8", "surrogatepass"))
    if size > limits.max_result_bytes:
        raise _BadDocument(
            ErrorKind.RESULT_TOO_LARGE,
            f"The scorer's outcome (score, error and console) was {size:,} bytes; the limit is "
            f"{limits.max_result_bytes:,} bytes.",
        )
    try:
        document = json.loads(raw)
    except ValueError:
        document = None
    valid = (
        isinstance(document, dict)
        and document.get("state") in {"ok", "pending", "error", "syntax"}
        and all(isinstance(document.get(key), str) for key in ("kind", "detail", "valueType", "stack"))
        and isinstance(document.get("nonError"), bool)
        and isinstance(document.get("dropped"), int)
        and isinstance(document.get("console"), list)
        and all(
            isinstance(line, list)
            and len(line) == 3
            and line[0] in LEVELS
            and isinstance(line[1], str)
            and isinstance(line[2], bool)
            for line in document["console"]
        )
    )
    if not valid:
        raise _BadDocument(ErrorKind.SANDBOX_ERROR, "The sandbox returned an outcome it could not read.")
    return dict(document)


def _finished(document: dict[str, Any], limits: SandboxLimits) -> dict[str, Any]:
    if document["state"] == "ok":
        value = document.get("score")
        if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= 1:
            return _result("ok", float(value), None, "", document)
        return _errored(ErrorKind.SANDBOX_ERROR, "The sandbox reported a score it could not read.", document)
    kind = document["kind"]
    if kind == ErrorKind.NOT_A_FUNCTION:
        return _errored(
            ErrorKind.NOT_A_FUNCTION,
            "The code must evaluate to a function such as `async ({ input, expected, output }) => { … }`, "
            f"but it evaluated to {described_value(document, as_result=False)}.",
            document,
        )
    if kind == ErrorKind.INVALID_RESULT:
        described = described_value(document, as_result=True)
        return _errored(
            ErrorKind.INVALID_RESULT,
            f"The scorer must return a number between 0 and 1, but it returned {described}"
            + ("" if described.endswith("?") else "."),
            document,
        )
    return _errored(ErrorKind.EXCEPTION, exception_message(document), document)


def _syntax_error(
    racer: Any, source: str, prefix: str, document: dict[str, Any], limits: SandboxLimits
) -> dict[str, Any]:
    """V8 reports no position for a SyntaxError thrown by eval, so the source is parsed once more as a script
    of its own (inside a block that is never entered), where the parse error message carries the line and a
    caret under the column."""
    from py_mini_racer import JSEvalException, JSParseException

    message = f"Syntax error: {document['detail']}"
    try:
        # `void 0`: even a source that escapes the block cannot hand a JS object back to Python.
        racer.eval("if (false) {\n" + source + "\n}\nvoid 0", timeout_sec=_SALVAGE_SECONDS)
    except JSParseException as error:
        report = str(error).splitlines()
        head = _PARSE_ERROR_HEAD.match(report[0]) if report else None
        if head:
            source_lines = _LINE_BREAK.split(source)
            line = int(head.group(1)) - 1  # the block around the source adds one line
            caret = report[2].find("^") + 1 if len(report) > 2 else 0
            detail = head.group(2).removeprefix("SyntaxError: ")
            if not 1 <= line <= len(source_lines) or caret < 1:
                # At the block's closing brace: the source ended too early (an unclosed brace, string, comment).
                line = max((number for number, text in enumerate(source_lines, 1) if text.strip()), default=1)
                caret, detail = len(source_lines[line - 1]) + 1, "Unexpected end of input"
            text, column = source_lines[line - 1], caret
            if line == 1 and prefix:
                text, column = text[len(prefix) :], max(column - len(prefix), 1)
            gutter = str(line)
            frame = f"{gutter} | {text}\n{' ' * len(gutter)} | {' ' * (column - 1)}^"
            return _errored(
                ErrorKind.SYNTAX_ERROR,
                f"Syntax error at line {line}, column {column}: {detail}\n{frame}",
                document,
                line=line,
                column=column,
            )
    except JSEvalException:
        pass
    return _errored(ErrorKind.SYNTAX_ERROR, message, document)


def _stopped(
    racer: Any, limits: SandboxLimits, kind: ErrorKind, message: str, document: dict[str, Any] | None = None
) -> dict[str, Any]:
    """After a timeout or out-of-memory stop: V8 can run again, so read the console the scorer wrote so far."""
    from py_mini_racer import JSEvalException

    try:
        # Reset (and raise) the memory limit: reading the console must not trip it again.
        racer.set_hard_memory_limit(limits.max_memory_bytes * 2)
        document = _read(racer.eval("__evalhub_outcome()", timeout_sec=_SALVAGE_SECONDS), limits)
    except (JSEvalException, _BadDocument):
        return _errored(kind, message, document, console_note="The console output could not be read back.")
    return _errored(kind, message, document)


def _without_harness_frames(text: str) -> str:
    """A logged Error's stack shows the sandbox's own frames too; the scorer's author needs only theirs."""
    return _HARNESS_FRAME.sub("", text) if "<anonymous>" in text else text


def _first_lines(text: str, count: int) -> str:
    return "\n".join(text.strip().splitlines()[:count])


def raw_error(kind: ErrorKind, message: str) -> dict[str, Any]:
    """A raw outcome for a failure found outside V8 (sizes, a dead host...)."""
    return _errored(kind, message)


def _errored(
    kind: ErrorKind,
    message: str,
    document: dict[str, Any] | None = None,
    *,
    console_note: str = "",
    line: int | None = None,
    column: int | None = None,
) -> dict[str, Any]:
    return _result("errored", None, kind, message, document, console_note=console_note, line=line, column=column)


def _result(
    status: str,
    value: float | None,
    kind: ErrorKind | None,
    message: str,
    document: dict[str, Any] | None,
    *,
    console_note: str = "",
    line: int | None = None,
    column: int | None = None,
) -> dict[str, Any]:
    return {
        "status": status,
        "score": value,
        "error_kind": kind.value if kind else None,
        "error": message,
        "line": line,
        "column": column,
        "console": [[level, _without_harness_frames(text), cut] for level, text, cut in document["console"]]
        if document
        else [],
        "dropped": document["dropped"] if document else 0,
        "console_note": console_note,
    }
