"""The hostile-scorer corpus: every misbehaviour is a scorer error of a precise kind, the process survives, and
the next scoring in the same process works."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from scorers.sandbox import DEFAULT_LIMITS, TRUNCATED, ErrorKind, run_scorer
from tests.scorers.records import weather_record

# A short time limit keeps the timeout cases quick; one test below uses the default 1 s. Filling 64 MB takes
# about 0.3 s, so the memory cases get more time: they must end on the memory limit, not on the clock.
LIMITS = replace(DEFAULT_LIMITS, timeout_seconds=0.4)
MEMORY_LIMITS = replace(DEFAULT_LIMITS, timeout_seconds=5)
GOOD = "async ({ output }) => (output.allToolCalls.length === 1 ? 0.75 : 0)"
RECORD = weather_record(48.85, 2.35)

HOSTILE: dict[str, tuple[str, ErrorKind]] = {
    # Parsing and shape
    "syntax error": (
        "async ({ output }) => {\n  const calls = output.allToolCalls;\n  return calls.length > ;\n}",
        ErrorKind.SYNTAX_ERROR,
    ),
    "unclosed brace": ("async ({ output }) => {\n  return 1;\n", ErrorKind.SYNTAX_ERROR),
    "a number, not a function": ("42", ErrorKind.NOT_A_FUNCTION),
    "empty code": ("", ErrorKind.NOT_A_FUNCTION),
    "an object, not a function": ("({ score: 1 })", ErrorKind.NOT_A_FUNCTION),
    # Exceptions
    "thrown TypeError": ("async ({ output }) => {\n  return output.missing.deeper;\n}", ErrorKind.EXCEPTION),
    "rejected promise": ("async () => { await null; throw new RangeError('out of range'); }", ErrorKind.EXCEPTION),
    "thrown string": ("() => { throw 'oops'; }", ErrorKind.EXCEPTION),
    "thrown object": ("async () => { throw { code: 42 }; }", ErrorKind.EXCEPTION),
    "thrown undefined": ("() => { throw undefined; }", ErrorKind.EXCEPTION),
    "endless recursion": ("() => { const f = (n) => f(n + 1) + 1; return f(0); }", ErrorKind.EXCEPTION),
    "import()": ("async () => { await import('fs'); return 1; }", ErrorKind.EXCEPTION),
    "SyntaxError at run time": ("() => JSON.parse('not json')", ErrorKind.EXCEPTION),
    # Time
    "infinite loop": ("() => { while (true) {} }", ErrorKind.TIMEOUT),
    "infinite loop at top level": ("while (true) {}", ErrorKind.TIMEOUT),
    "infinite microtask chain": ("async () => { for (;;) await null; }", ErrorKind.TIMEOUT),
    "infinite then chain": (
        "() => { const spin = () => { Promise.resolve().then(spin); }; spin(); return Promise.resolve(1); }",
        ErrorKind.TIMEOUT,
    ),
    "promise chain that retains memory": (
        "() => { const spin = () => Promise.resolve().then(spin); return spin(); }",
        ErrorKind.MEMORY,
    ),
    "loop inside a then callback": ("() => Promise.resolve().then(() => { while (true) {} })", ErrorKind.TIMEOUT),
    "never-resolving promise": ("async () => { await new Promise(() => {}); return 1; }", ErrorKind.TIMEOUT),
    "catastrophic regex": ("() => /(a+)+$/.test('a'.repeat(40) + 'b') ? 1 : 0", ErrorKind.TIMEOUT),
    "getter that loops (then)": ("() => ({ get then() { for (;;) {} } })", ErrorKind.TIMEOUT),
    "toJSON that loops (console)": (
        "() => { console.log({ toJSON() { for (;;) {} } }); return 1; }",
        ErrorKind.TIMEOUT,
    ),
    # Memory
    "memory bomb": ("() => { const a = []; for (let i = 0; ; i++) a.push('x'.repeat(64) + i); }", ErrorKind.MEMORY),
    "memory bomb, async": (
        "async () => {\n  const a = [];\n"
        "  for (let i = 0; ; i++) { a.push({ i, s: String(i) }); if (i % 1e5 === 0) await null; }\n}",
        ErrorKind.MEMORY,
    ),
    "doubling string": ("() => { let s = 'x'; for (;;) s += s; }", ErrorKind.EXCEPTION),  # V8: Invalid string length
    # Results
    "NaN": ("() => NaN", ErrorKind.INVALID_RESULT),
    "Infinity": ("async () => Infinity", ErrorKind.INVALID_RESULT),
    "a string": ("() => '0.5'", ErrorKind.INVALID_RESULT),
    "undefined": ("async () => { const score = 1; }", ErrorKind.INVALID_RESULT),
    "above 1": ("() => 1.5", ErrorKind.INVALID_RESULT),
    "below 0": ("() => -0.1", ErrorKind.INVALID_RESULT),
    "an object": ("() => ({ score: 1 })", ErrorKind.INVALID_RESULT),
    "an array": ("() => [1]", ErrorKind.INVALID_RESULT),
    "a boolean": ("() => true", ErrorKind.INVALID_RESULT),
    "null": ("async () => null", ErrorKind.INVALID_RESULT),
    "a BigInt": ("() => 1n", ErrorKind.INVALID_RESULT),
    "getter that loops (valueOf), never called": ("() => ({ valueOf() { for (;;) {} } })", ErrorKind.INVALID_RESULT),
    "getter that loops (toJSON), never called": ("() => ({ toJSON() { for (;;) {} } })", ErrorKind.INVALID_RESULT),
}


def assert_next_scoring_works() -> None:
    outcome = run_scorer(GOOD, RECORD, limits=LIMITS)
    assert (outcome.status, outcome.score) == ("ok", 0.75), outcome.error


class HostileScorerTests:
    @pytest.mark.parametrize("name", list(HOSTILE))
    def test_it_turns_the_misbehaviour_into_a_scorer_error(self, name: str) -> None:
        code, kind = HOSTILE[name]

        outcome = run_scorer(code, RECORD, limits=MEMORY_LIMITS if kind == ErrorKind.MEMORY else LIMITS)

        assert outcome.status == "errored"
        assert outcome.error_kind == kind, outcome.error
        assert outcome.score is None
        assert outcome.effective_score == 0
        assert outcome.error
        assert_next_scoring_works()

    def test_a_syntax_error_has_its_line_and_column(self) -> None:
        outcome = run_scorer(HOSTILE["syntax error"][0], RECORD, limits=LIMITS)

        assert (outcome.line, outcome.column) == (3, 25)
        assert outcome.error == (
            "Syntax error at line 3, column 25: Unexpected token ';'\n"
            "3 |   return calls.length > ;\n"
            "  |                         ^"
        )

    def test_an_unclosed_brace_points_at_the_end(self) -> None:
        outcome = run_scorer(HOSTILE["unclosed brace"][0], RECORD, limits=LIMITS)

        assert (
            outcome.error
            == "Syntax error at line 2, column 12: Unexpected end of input\n2 |   return 1;\n  |            ^"
        )

    def test_an_exception_has_its_message_and_stack(self) -> None:
        outcome = run_scorer(HOSTILE["thrown TypeError"][0], RECORD, limits=LIMITS)

        assert outcome.error.startswith(
            "The scorer threw TypeError: Cannot read properties of undefined (reading 'deeper')"
        )
        assert "scorer.js:2:25" in outcome.error
        assert "<anonymous>" not in outcome.error  # the harness's own frames are left out

    def test_a_rejection_keeps_its_error_class(self) -> None:
        outcome = run_scorer(HOSTILE["rejected promise"][0], RECORD, limits=LIMITS)

        assert outcome.error.startswith("The scorer threw RangeError: out of range")

    def test_a_non_error_throw_is_described(self) -> None:
        thrown_string = run_scorer(HOSTILE["thrown string"][0], RECORD, limits=LIMITS)
        thrown_object = run_scorer(HOSTILE["thrown object"][0], RECORD, limits=LIMITS)

        assert thrown_string.error.startswith('The scorer threw a string instead of an Error: "oops"')
        assert thrown_object.error.startswith('The scorer threw an object instead of an Error: {"code":42}')

    def test_each_timeout_says_what_was_still_running(self) -> None:
        loop = run_scorer(HOSTILE["infinite loop"][0], RECORD, limits=LIMITS)
        chain = run_scorer(HOSTILE["infinite microtask chain"][0], RECORD, limits=LIMITS)
        never = run_scorer(HOSTILE["never-resolving promise"][0], RECORD, limits=LIMITS)

        assert loop.error == "Timed out after 0.4 s: the scorer was still running (an endless loop?)."
        assert "promise callbacks never stopped running" in chain.error, chain.error
        assert "promise never settled" in never.error, never.error
        for outcome in (loop, chain, never):
            assert 400 <= outcome.duration_ms < 4000, outcome  # generous: CI machines are busy

    def test_the_default_time_limit_is_one_second(self) -> None:
        outcome = run_scorer("async () => { for (;;) await null; }", RECORD)

        assert outcome.error_kind == ErrorKind.TIMEOUT
        assert outcome.error.startswith("Timed out after 1 s")
        assert 1000 <= outcome.duration_ms < 5000

    def test_the_memory_error_names_the_limit(self) -> None:
        outcome = run_scorer(HOSTILE["memory bomb"][0], RECORD, limits=MEMORY_LIMITS)

        assert outcome.error == "Out of memory: the scorer used more than 64 MB of JavaScript heap."

    def test_invalid_results_say_what_came_back(self) -> None:
        def error(name: str) -> str:
            return run_scorer(HOSTILE[name][0], RECORD, limits=LIMITS).error

        prefix = "The scorer must return a number between 0 and 1, but it returned "
        assert error("NaN") == prefix + "NaN."
        assert error("Infinity") == prefix + "Infinity."
        assert error("a string") == prefix + 'a string ("0.5") — convert it with Number(…).'
        assert error("undefined") == prefix + "undefined — is a `return` missing?"
        assert error("above 1") == prefix + "1.5, which is outside 0..1."
        assert error("an object") == prefix + "an object."
        assert error("a boolean") == prefix + "a boolean (true) — return 1 or 0."

    def test_not_a_function_says_what_the_code_evaluated_to(self) -> None:
        outcome = run_scorer("42", RECORD, limits=LIMITS)

        assert outcome.error == (
            "The code must evaluate to a function such as `async ({ input, expected, output }) => { … }`, "
            "but it evaluated to a number (42)."
        )

    def test_huge_console_output_is_truncated_not_an_error(self) -> None:
        code = "() => { for (let i = 0; i < 100000; i++) console.log('line', i, 'x'.repeat(100)); return 1; }"

        outcome = run_scorer(code, RECORD, limits=LIMITS)

        assert (outcome.status, outcome.score) == ("ok", 1.0)
        assert sum(len(line.text.encode()) for line in outcome.console) < LIMITS.max_console_bytes + 200
        assert outcome.console[-1].text.startswith(TRUNCATED)
        assert "more console lines not shown" in outcome.console[-1].text
        assert_next_scoring_works()

    def test_one_huge_console_line_is_cut_with_a_marker(self) -> None:
        outcome = run_scorer("() => { console.log('y'.repeat(10_000_000)); return 1; }", RECORD, limits=LIMITS)

        assert outcome.ok
        assert len(outcome.console) == 1
        assert outcome.console[0].text == "y" * LIMITS.max_console_bytes + TRUNCATED

    def test_a_huge_error_message_is_cut(self) -> None:
        outcome = run_scorer("() => { throw new Error('z'.repeat(5_000_000)); }", RECORD, limits=LIMITS)

        assert outcome.error_kind == ErrorKind.EXCEPTION
        assert len(outcome.error) < 2 * LIMITS.max_message_chars

    def test_an_outcome_over_the_result_limit_is_an_error(self) -> None:
        limits = replace(LIMITS, max_console_bytes=100_000, max_result_bytes=20_000)

        outcome = run_scorer("() => { console.log('w'.repeat(50_000)); return 1; }", RECORD, limits=limits)

        assert outcome.error_kind == ErrorKind.RESULT_TOO_LARGE
        assert "limit is 20,000 bytes" in outcome.error
        assert_next_scoring_works()

    def test_code_over_the_source_limit_is_refused_before_running(self) -> None:
        code = "() => 1 // " + "x" * DEFAULT_LIMITS.max_source_bytes

        outcome = run_scorer(code, RECORD)

        assert outcome.error_kind == ErrorKind.SOURCE_TOO_LARGE
        assert outcome.error == "The scorer code is 102,411 bytes; the limit is 102,400 bytes (100 KB)."

    def test_a_record_over_the_input_limit_is_refused(self) -> None:
        outcome = run_scorer(GOOD, RECORD, limits=replace(LIMITS, max_input_bytes=200))

        assert outcome.error_kind == ErrorKind.INPUT_TOO_LARGE

    def test_a_scorer_that_crashes_v8_does_not_take_this_process_down(self) -> None:
        # V8 aborts its whole process on this one ("Fatal JavaScript invalid size error"): the sandbox host
        # dies, is replaced, and this process carries on.
        code = "() => 'x'.repeat(2 ** 28).split('').length"

        outcome = run_scorer(code, RECORD, limits=MEMORY_LIMITS)

        assert outcome.error_kind == ErrorKind.MEMORY
        assert "larger than the JavaScript engine allows" in outcome.error
        assert "invalid size" in outcome.error
        assert os.getpid() > 0
        assert_next_scoring_works()

    def test_a_scorer_v8_cannot_interrupt_gets_its_process_killed(self) -> None:
        # Array.prototype.fill on a huge dictionary-mode array never checks for termination.
        code = "() => { const a = [new Array(1.2e8).fill(0), new Array(1.2e8).fill(0)]; return 1; }"

        outcome = run_scorer(code, RECORD, limits=LIMITS)

        assert outcome.error_kind in {ErrorKind.TIMEOUT, ErrorKind.MEMORY}
        assert outcome.duration_ms < (LIMITS.timeout_seconds + 3) * 1000
        assert_next_scoring_works()

    def test_tampering_with_built_ins_cannot_forge_the_outcome(self) -> None:
        code = """async () => {
          Object.prototype.toJSON = () => "forged";
          Array.prototype.toJSON = () => "forged";
          JSON.stringify = () => '{"state":"ok","score":1}';
          Object.defineProperty(Array.prototype, "0", { set() {} });
          String.prototype.slice = () => "";
          Promise.prototype.then = function () {};
          try { globalThis.__evalhub_outcome = () => "{}"; } catch (e) {}
          console.log("still captured");
          return 0.25;
        }"""

        outcome = run_scorer(code, RECORD, limits=LIMITS)

        assert (outcome.status, outcome.score) == ("ok", 0.25), outcome.error
        assert [line.text for line in outcome.console] == ["still captured"]
        assert_next_scoring_works()


class ConsoleOnFailureTests:
    def test_console_is_kept_when_the_scorer_throws(self) -> None:
        outcome = run_scorer("() => { console.log('checking'); throw new Error('bad'); }", RECORD, limits=LIMITS)

        assert outcome.error_kind == ErrorKind.EXCEPTION
        assert [line.text for line in outcome.console] == ["checking"]

    def test_console_is_kept_after_a_timeout(self) -> None:
        outcome = run_scorer("() => { console.warn('about to spin'); for (;;) {} }", RECORD, limits=LIMITS)

        assert outcome.error_kind == ErrorKind.TIMEOUT
        assert [(line.level, line.text) for line in outcome.console] == [("warn", "about to spin")]

    def test_console_is_kept_after_running_out_of_memory(self) -> None:
        code = "() => { console.error('allocating'); const a = []; for (;;) a.push('x'.repeat(64) + a.length); }"

        outcome = run_scorer(code, RECORD, limits=MEMORY_LIMITS)

        assert outcome.error_kind == ErrorKind.MEMORY
        assert [(line.level, line.text) for line in outcome.console] == [("error", "allocating")]

    def test_console_before_the_first_await_is_kept_after_an_endless_chain(self) -> None:
        outcome = run_scorer("async () => { console.log('start'); for (;;) await null; }", RECORD, limits=LIMITS)

        assert outcome.error_kind == ErrorKind.TIMEOUT
        assert [line.text for line in outcome.console] == ["start"]
        assert outcome.console_note
