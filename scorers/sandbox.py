"""Run JavaScript code scorers safely: `run_scorer(code, scorer_input) -> ScoringOutcome`.

A code scorer is `async ({ input, expected, output }) => number` (a plain arrow function or a `function`
works too) that must return a number in 0..1. Every scoring gets a fresh V8 context (mini-racer) with the
limits of `SandboxLimits`; nothing survives from one scoring to the next.

V8 runs in a separate "sandbox host" process (`scorers.sandbox_host`), never in the web or worker process: a
few inputs make V8 abort its whole process. A host that dies or stops answering is replaced, and the scoring
becomes a scorer error. Hosts start on first use (about 0.2 s) and are reused; each scoring still gets its own
V8 context. How each limit is enforced inside V8 is described in `scorers.sandbox_engine`.

Every misbehaviour of the scorer is a `ScoringOutcome` with status "errored" and an `error_kind`
(`ErrorKind`); nothing raises. An errored scoring counts as 0 (`effective_score`). Huge console output is
cut at the console limits with a "…truncated" marker and is not an error. Console lines are kept even when
the scorer fails, as far as V8 could still be read (see `ScoringOutcome.console_note`).

The scorer sees only standard JavaScript: no setTimeout/setInterval/setImmediate, require, process, fetch,
import(), WebAssembly, ArrayBuffer/typed arrays or Atomics, and no Python callbacks. Data crosses the boundary
only as JSON text.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from scorers import sandbox_engine, sandbox_host
from scorers.contract import sample_input
from scorers.sandbox_engine import raw_error
from scorers.sandbox_host import HostDied, HostStartFailed, HostStuck
from scorers.sandbox_limits import LEVELS, ErrorKind, SandboxLimits, limits_payload

__all__ = [
    "DEFAULT_LIMITS",
    "ConsoleLine",
    "ErrorKind",
    "SandboxLimits",
    "ScoringOutcome",
    "compile_problem",
    "run_program",
    "run_scorer",
    "run_scorer_in_process",
]

DEFAULT_LIMITS = SandboxLimits()
TRUNCATED = "…truncated"
# Beyond the scorer's own time: context creation, reading the console back, the pipe. A host that has not
# answered by then is stuck in V8 and is killed.
_HOST_GRACE_SECONDS = 2.0


@dataclass(frozen=True)
class ConsoleLine:
    level: str  # "log", "info", "warn" or "error"
    text: str


@dataclass(frozen=True)
class ScoringOutcome:
    """One scoring. `score` is None unless status is "ok"; `error` is "" then.

    `line`/`column` (1-based) locate a syntax error in the scorer's code. `console_note` says when console
    output is missing (e.g. the scorer was stopped while its promise callbacks ran).
    """

    status: Literal["ok", "errored"]
    score: float | None
    error_kind: ErrorKind | None
    error: str
    console: tuple[ConsoleLine, ...]
    duration_ms: float
    line: int | None = None
    column: int | None = None
    console_note: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def effective_score(self) -> float:
        """The score the run records: a scorer error counts as 0 (and the run shows it errored)."""
        return self.score if self.ok and self.score is not None else 0.0


def run_scorer(code: str, scorer_input: Mapping[str, Any], *, limits: SandboxLimits = DEFAULT_LIMITS) -> ScoringOutcome:
    """Score one run record (see `scorers.contract.scorer_input`) with `code`, in a sandbox host process."""
    started = time.monotonic()
    early = _check_sizes(code, scorer_input, limits, started)
    if isinstance(early, ScoringOutcome):
        return early
    request = {"op": "score", "code": code, "input": early, "limits": limits_payload(limits)}
    return _outcome(_in_host(request, limits), limits, started)


def run_program(
    code: str,
    *,
    tool_names: list[str],
    max_calls: int,
    answer: Callable[[Any], Any],
    limits: SandboxLimits = DEFAULT_LIMITS,
) -> tuple[ScoringOutcome, str | None]:
    """Run a code-mode program (runs/code_mode/engine.py) in a sandbox host, with a scorer's limits and outcome.

    Each `tools.<name>(args)` call of the program is passed to `answer({"name", "args"})`, on this thread, and
    at most `max_calls` of them. Returns the outcome (its score is meaningless) and the return value as JSON text
    (None unless the program finished)."""
    started = time.monotonic()
    early = _check_sizes(code, {}, limits, started)
    if isinstance(early, ScoringOutcome):
        return early, None
    request = {"op": "run_code", "code": code, "tools": tool_names, "max_calls": max_calls}
    raw = _in_host({**request, "limits": limits_payload(limits)}, limits, answer)
    returned = raw.get("returnValue")
    return _outcome(raw, limits, started), returned if isinstance(returned, str) else None


def _in_host(request: Mapping[str, Any], limits: SandboxLimits, answer: Callable[[Any], Any] | None = None) -> Any:
    """The raw outcome of one request to a pooled sandbox host; a host that is stuck or dies is replaced."""
    try:
        with sandbox_host.POOL.host() as host:
            try:
                timeout = limits.timeout_seconds + _HOST_GRACE_SECONDS
                if answer is None:
                    return host.request(request, timeout=timeout)
                return host.converse(request, answer, timeout=timeout)
            except HostStuck:
                host.kill()
                return raw_error(
                    ErrorKind.TIMEOUT,
                    f"Timed out after {limits.timeout_seconds:g} s: the scorer could not be stopped, so its "
                    "sandbox process was killed.",
                )
            except HostDied as died:
                return raw_error(*_crash_reason(died.stderr))
    except HostStartFailed as failed:
        return raw_error(ErrorKind.SANDBOX_ERROR, str(failed))


def run_scorer_in_process(
    code: str, scorer_input: Mapping[str, Any], *, limits: SandboxLimits = DEFAULT_LIMITS
) -> ScoringOutcome:
    """Like `run_scorer`, but V8 runs in this process: faster, and fine for the benchmark or for code you trust
    not to crash V8 — never for users' code in the web or worker process."""
    started = time.monotonic()
    early = _check_sizes(code, scorer_input, limits, started)
    if isinstance(early, ScoringOutcome):
        return early
    return _outcome(sandbox_engine.score(code, early, limits), limits, started)


def compile_problem(code: str, *, limits: SandboxLimits = DEFAULT_LIMITS) -> ScoringOutcome | None:
    """Whether `code` is usable as a scorer at all: a dry run on a record with no tool calls. Returns the
    outcome when the code does not parse, does not evaluate to a function or is too large; None otherwise
    (an exception on that empty record may be fine on real ones)."""
    outcome = run_scorer(code, sample_input(), limits=limits)
    unusable = {ErrorKind.SYNTAX_ERROR, ErrorKind.NOT_A_FUNCTION, ErrorKind.SOURCE_TOO_LARGE}
    return outcome if outcome.error_kind in unusable else None


# --- building the outcome ---


def _check_sizes(
    code: str, scorer_input: Mapping[str, Any], limits: SandboxLimits, started: float
) -> str | ScoringOutcome:
    """The record as JSON text, or the outcome when the code or the record is over its limit."""
    source_bytes = len(code.encode("utf-8", "surrogatepass"))
    if source_bytes > limits.max_source_bytes:
        message = (
            f"The scorer code is {source_bytes:,} bytes; the limit is {limits.max_source_bytes:,} bytes "
            f"({_size(limits.max_source_bytes)})."
        )
        return _outcome(raw_error(ErrorKind.SOURCE_TOO_LARGE, message), limits, started)
    input_json = json.dumps(scorer_input, ensure_ascii=False, allow_nan=False)
    input_bytes = len(input_json.encode("utf-8", "surrogatepass"))
    if input_bytes > limits.max_input_bytes:
        message = (
            f"The run's record is {input_bytes:,} bytes of JSON; scorers accept at most "
            f"{limits.max_input_bytes:,} bytes ({_size(limits.max_input_bytes)})."
        )
        return _outcome(raw_error(ErrorKind.INPUT_TOO_LARGE, message), limits, started)
    return input_json


def _outcome(raw: Mapping[str, Any], limits: SandboxLimits, started: float) -> ScoringOutcome:
    ok = raw.get("status") == "ok" and isinstance(raw.get("score"), float)
    kind = raw.get("error_kind")
    return ScoringOutcome(
        status="ok" if ok else "errored",
        score=raw["score"] if ok else None,
        error_kind=None if ok else ErrorKind(kind) if kind in set(ErrorKind) else ErrorKind.SANDBOX_ERROR,
        error="" if ok else _clean(str(raw.get("error") or "The sandbox failed without a message.")),
        console=_console(raw, limits),
        duration_ms=(time.monotonic() - started) * 1000,
        line=raw.get("line") if isinstance(raw.get("line"), int) else None,
        column=raw.get("column") if isinstance(raw.get("column"), int) else None,
        console_note=str(raw.get("console_note") or ""),
    )


def _console(raw: Mapping[str, Any], limits: SandboxLimits) -> tuple[ConsoleLine, ...]:
    """Console lines with the byte cap applied exactly (V8 counted characters) and the truncation marker."""
    lines: list[ConsoleLine] = []
    budget = limits.max_console_bytes
    dropped = raw["dropped"] if isinstance(raw.get("dropped"), int) else 0
    for entry in raw.get("console") or []:
        level, text, cut = entry
        if level not in LEVELS or len(lines) >= limits.max_console_lines or budget <= 0:
            dropped += 1
            continue
        encoded = _clean(str(text)).encode()
        if len(encoded) > budget:
            encoded, cut = encoded[:budget], True
        budget -= len(encoded)
        text = encoded.decode(errors="ignore")
        lines.append(ConsoleLine(level, text + TRUNCATED if cut else text))
    if dropped:
        lines.append(
            ConsoleLine(
                "warn",
                f"{TRUNCATED}: {dropped} more console line{'s' if dropped != 1 else ''} not shown (limits: "
                f"{limits.max_console_lines} lines, {_size(limits.max_console_bytes)}).",
            )
        )
    return tuple(lines)


def _clean(text: str) -> str:
    # Lone surrogates (JavaScript allows them) and NUL cannot be stored in every database.
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").replace("\x00", "\ufffd")


def _crash_reason(stderr: str) -> tuple[ErrorKind, str]:
    lines = [line.strip("# ") for line in stderr.splitlines()]
    fatal = next((line for line in lines if "Fatal JavaScript" in line), "") or next(
        (line for line in lines if "Fatal" in line or "FATAL" in line), ""
    )
    note = " Its sandbox process was restarted; console output is lost."
    if "invalid size" in fatal:
        return ErrorKind.MEMORY, (
            "The scorer built a string or array larger than the JavaScript engine allows, and the engine aborted "
            f"({fatal})." + note
        )
    if "out of memory" in stderr.lower() or "heap limit" in stderr.lower():
        return ErrorKind.MEMORY, "The scorer exhausted the JavaScript engine's memory and the engine aborted." + note
    detail = f" ({fatal})" if fatal else ""
    return ErrorKind.CRASHED, f"The JavaScript engine crashed while running the scorer{detail}." + note


def _size(size: int) -> str:
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):.1f} MB"
    return f"{size / 1024:.0f} KB" if size >= 1024 else f"{size} bytes"
