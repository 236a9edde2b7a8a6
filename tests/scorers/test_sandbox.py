"""run_scorer on well-behaved scorers: the product's example scorer, the accepted code forms, console capture,
isolation between scorings and what the sandbox does not offer."""

from __future__ import annotations

import json
import threading
from dataclasses import replace

import pytest

from scorers import sandbox_host
from scorers.contract import EXAMPLE_SCORER, sample_input
from scorers.sandbox import (
    DEFAULT_LIMITS,
    ConsoleLine,
    ErrorKind,
    SandboxLimits,
    compile_problem,
    run_scorer,
    run_scorer_in_process,
)
from tests.scorers.records import no_call_record, record, tool_call, weather_record

# Standard ECMAScript globals V8 has; anything else (host functions, Python callbacks, timers) must not exist.
STANDARD_GLOBALS = {
    "AggregateError", "Array", "AsyncDisposableStack", "BigInt", "Boolean", "Date", "DisposableStack", "Error",
    "EvalError", "Function", "Infinity", "Intl", "Iterator", "JSON", "Map", "Math", "NaN", "Number", "Object",
    "Promise", "Proxy", "RangeError", "ReferenceError", "Reflect", "RegExp", "Set", "String", "SuppressedError",
    "Symbol", "SyntaxError", "Temporal", "TypeError", "URIError", "WeakMap", "WeakRef", "WeakSet", "decodeURI",
    "decodeURIComponent", "encodeURI", "encodeURIComponent", "escape", "eval", "globalThis", "isFinite", "isNaN",
    "parseFloat", "parseInt", "unescape",
    "console", "__evalhub_outcome",  # ours: the captured console, and the harness's read-out
}  # fmt: skip


class ReferenceScorerTests:
    def test_it_is_the_example_the_generator_shows(self) -> None:
        assert EXAMPLE_SCORER == EXAMPLE_SCORER

    @pytest.mark.parametrize(
        ("latitude", "longitude", "expected"),
        [
            (48.85, 2.35, 1.0),
            (-90, 180, 1.0),
            (95, 2.35, 0.0),
            (48.85, -181, 0.0),
            ("48.85", 2.35, 0.0),
            (None, 2.35, 0.0),
        ],
    )
    def test_it_scores_the_coordinates_of_the_first_call(
        self, latitude: object, longitude: object, expected: float
    ) -> None:
        outcome = run_scorer(EXAMPLE_SCORER, weather_record(latitude, longitude))

        assert (outcome.status, outcome.score, outcome.error) == ("ok", expected, "")

    def test_it_scores_0_when_get_weather_was_not_called(self) -> None:
        outcome = run_scorer(EXAMPLE_SCORER, no_call_record())

        assert (outcome.status, outcome.score) == ("ok", 0.0)

    def test_it_reads_only_the_first_weather_call(self) -> None:
        first = tool_call("get_weather", {"latitude": 48.85, "longitude": 2.35}, {"content": [], "isError": False})
        second = tool_call("get_weather", {"latitude": 123, "longitude": 2.35}, {"content": [], "isError": False})

        outcome = run_scorer(EXAMPLE_SCORER, record("Weather twice", [first, second], "Done."))

        assert outcome.score == 1.0


class CodeFormTests:
    @pytest.mark.parametrize(
        "code",
        [
            "async ({ input, expected, output }) => { return 0.5; };",
            "({ output }) => 0.5",
            "function ({ output }) { return 0.5; }",
            "async function ({ output }) { return 0.5 };",
            "function score({ output }) {\n  return 0.5;\n}",
            "async function score({ output }) { return 0.5; }",
            "// A scorer\n/* with comments */\nasync ({ output }) => 0.5\n// trailing comment",
            "const half = () => 0.5;\n({ output }) => half()",
            "async ({ output }) => { await null; await Promise.resolve(); return Promise.resolve(0.5); }",
        ],
    )
    def test_it_accepts_the_function_forms(self, code: str) -> None:
        outcome = run_scorer(code, weather_record(1, 2))

        assert (outcome.status, outcome.score) == ("ok", 0.5), outcome.error

    def test_it_passes_input_expected_and_output(self) -> None:
        scored = record("Ping", [], "Pong", expected={"answer": "Pong"})
        code = """({ input, expected, output }) => {
          const ok = input === "Ping" && expected.answer === output.text && output.transcript.prompt === "Ping"
            && Array.isArray(output.toolCalls) && output.transcript.steps.length === 1;
          return ok ? 1 : 0;
        }"""

        assert run_scorer(code, scored).score == 1.0

    def test_unicode_and_lone_surrogates_cross_the_boundary(self) -> None:
        scored = record("Météo à 東京 🌦 \ud800", [], "ok")

        outcome = run_scorer("({ input }) => { console.log(input, '\\udc00'); return input.length / 100; }", scored)

        assert outcome.score == 15 / 100  # UTF-16 code units, as JavaScript counts
        assert outcome.console[0].text == "Météo à 東京 🌦 \ufffd \ufffd"

    def test_numbers_keep_their_precision(self) -> None:
        assert run_scorer("() => 0.1 + 0.2 - 0.3 + 1 / 3", sample_input()).score == 0.1 + 0.2 - 0.3 + 1 / 3
        assert run_scorer("() => -0", sample_input()).score == 0.0


class ConsoleTests:
    def test_it_captures_each_level_and_formats_values(self) -> None:
        code = """() => {
          console.log("plain", 1, true, null, undefined);
          console.info({ a: [1, 2], b: "x" });
          console.warn("careful");
          console.error(new TypeError("bad value"));
          console.debug("debug goes to log");
          const cycle = {}; cycle.self = cycle;
          console.log(cycle, 10n, Symbol("s"), () => 1);
          console.assert(1 === 2, "math");
          return 1;
        }"""

        outcome = run_scorer(code, sample_input())

        assert outcome.console[:4] == (
            ConsoleLine("log", "plain 1 true null undefined"),
            ConsoleLine("info", '{"a":[1,2],"b":"x"}'),
            ConsoleLine("warn", "careful"),
            ConsoleLine("error", "TypeError: bad value\n    at eval (scorer.js:5:25)"),
        )
        assert outcome.console[4] == ConsoleLine("log", "debug goes to log")
        assert outcome.console[5].text.startswith("[object that JSON.stringify refused: Converting circular")
        assert outcome.console[5].text.endswith(" 10 Symbol(s) [Function]")
        assert outcome.console[6] == ConsoleLine("error", "Assertion failed: math")

    def test_the_line_count_is_capped(self) -> None:
        limits = replace(DEFAULT_LIMITS, max_console_lines=3)

        outcome = run_scorer("() => { for (let i = 0; i < 10; i++) console.log(i); return 1; }", {}, limits=limits)

        assert [line.text for line in outcome.console] == [
            "0",
            "1",
            "2",
            "…truncated: 7 more console lines not shown (limits: 3 lines, 32 KB).",
        ]


class IsolationTests:
    def test_a_global_set_by_one_scorer_is_undefined_in_the_next(self) -> None:
        polluter = """() => {
          globalThis.leaked = 42; var leakedVar = 1; Object.prototype.polluted = true; Array.prototype.first = 1;
          JSON.parse = () => 0; Math.max = () => 0;
          return 1;
        }"""
        checker = """() => {
          const clean = typeof leaked === "undefined" && typeof leakedVar === "undefined"
            && ({}).polluted === undefined && [].first === undefined
            && JSON.parse("[1]").length === 1 && Math.max(1, 2) === 2;
          return clean ? 1 : 0;
        }"""

        assert run_scorer(polluter, sample_input()).score == 1.0
        assert run_scorer(checker, sample_input()).score == 1.0

    def test_host_features_do_not_exist(self) -> None:
        code = """() => {
          const names = ["setTimeout", "setInterval", "setImmediate", "clearTimeout", "require", "process", "fetch",
            "WebAssembly", "ArrayBuffer", "SharedArrayBuffer", "Uint8Array", "DataView", "Atomics",
            "FinalizationRegistry", "__timer_manager", "module", "exports", "Buffer", "XMLHttpRequest"];
          console.log(JSON.stringify(names.filter((name) => eval("typeof " + name) !== "undefined")));
          console.log(typeof __TimerManager);
          return 1;
        }"""

        outcome = run_scorer(code, sample_input())

        assert [line.text for line in outcome.console] == ["[]", "undefined"]

    def test_only_standard_globals_exist(self) -> None:
        code = """() => {
          const names = Object.getOwnPropertyNames(globalThis).filter((name) => globalThis[name] !== undefined);
          console.log(JSON.stringify(names));
          return 1;
        }"""

        names = json.loads(run_scorer(code, sample_input()).console[0].text)

        assert set(names) <= STANDARD_GLOBALS, set(names) - STANDARD_GLOBALS

    def test_concurrent_scorings_do_not_mix(self) -> None:
        results: dict[int, float | None] = {}

        def score(index: int) -> None:
            code = f"async () => {{ globalThis.mine = {index}; await null; return globalThis.mine / 100; }}"
            results[index] = run_scorer(code, sample_input()).score

        threads = [threading.Thread(target=score, args=(index,)) for index in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

        assert results == {index: index / 100 for index in range(8)}


class RunnerTests:
    def test_the_in_process_runner_gives_the_same_outcome(self) -> None:
        outcome = run_scorer_in_process(EXAMPLE_SCORER, weather_record(48.85, 2.35))
        failing = run_scorer_in_process(
            "() => { for (;;) {} }", sample_input(), limits=replace(DEFAULT_LIMITS, timeout_seconds=0.2)
        )

        assert (outcome.status, outcome.score) == ("ok", 1.0)
        assert failing.error_kind == ErrorKind.TIMEOUT

    def test_an_outcome_says_how_long_it_took(self) -> None:
        outcome = run_scorer("() => 1", sample_input())

        assert 0 < outcome.duration_ms < 1000

    def test_an_error_counts_as_zero(self) -> None:
        ok = run_scorer("() => 0.8", sample_input())
        errored = run_scorer("() => { throw new Error('x'); }", sample_input())

        assert (ok.ok, ok.effective_score) == (True, 0.8)
        assert (errored.ok, errored.score, errored.effective_score) == (False, None, 0.0)

    def test_compile_problem_reports_only_unusable_code(self) -> None:
        syntax = compile_problem("() => {")

        assert syntax is not None and syntax.error_kind == ErrorKind.SYNTAX_ERROR
        assert compile_problem("({ output }) => output.allToolCalls[0].args.x") is None  # throws on no calls: usable
        assert compile_problem("() => 1") is None

    def test_a_sandbox_that_cannot_start_is_a_sandbox_error(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(sandbox_host, "_BOOT", "import sys; print('no V8 here', file=sys.stderr); sys.exit(3)")
        monkeypatch.setattr(sandbox_host, "POOL", sandbox_host.HostPool(1))

        outcome = run_scorer("() => 1", sample_input())

        assert outcome.error_kind == ErrorKind.SANDBOX_ERROR
        assert outcome.error == "The JavaScript sandbox process did not start: no V8 here"

    def test_limits_must_be_positive(self) -> None:
        with pytest.raises(ValueError, match="timeout_seconds must be positive"):
            SandboxLimits(timeout_seconds=0)
        with pytest.raises(ValueError, match="must be positive"):
            SandboxLimits(max_memory_bytes=-1)
