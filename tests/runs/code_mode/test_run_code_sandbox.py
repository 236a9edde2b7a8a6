"""run_code programs in the real sandbox host: hostile code is contained exactly as a scorer's is, tool calls
reach Python only as JSON through the mailbox, and the per-execution cap holds."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from runs.code_mode.execute import RUN_CODE_LIMITS
from scorers.sandbox import ErrorKind, run_program, run_scorer
from scorers.sandbox_limits import SandboxLimits


def answer_echo(asked: list[dict[str, Any]]) -> Any:
    def answer(question: dict[str, Any]) -> dict[str, Any]:
        asked.append(question)
        return {"ok": True, "value": json.dumps({"echo": question["args"]})}

    return answer


def run(
    code: str,
    *,
    max_calls: int = 20,
    asked: list[dict[str, Any]] | None = None,
    limits: SandboxLimits = RUN_CODE_LIMITS,
) -> Any:
    return run_program(
        code,
        tool_names=["get_weather", "odd-name"],
        max_calls=max_calls,
        answer=answer_echo(asked if asked is not None else []),
        limits=limits,
    )


# Filling the heap takes about 0.3 s of CPU, more on a loaded machine: a case meant to end on the memory limit gets
# more time, so it cannot end on the clock instead (as in tests/scorers/test_sandbox_hostile.py).
MEMORY_LIMITS = replace(RUN_CODE_LIMITS, timeout_seconds=5)


# The same hostile bodies as a program and as a scorer: a program is contained exactly as a scorer is.
HOSTILE: list[tuple[str, ErrorKind | set[ErrorKind]]] = [
    ("while (true) {}", ErrorKind.TIMEOUT),
    ("const a = []; while (true) a.push({ n: a.length, s: String(a.length) });", ErrorKind.MEMORY),
    # V8's own string length limit comes first: a RangeError the code could catch.
    ("let s = 'x'; while (true) s = s + s;", ErrorKind.EXCEPTION),
    ("await new Promise(() => {});", ErrorKind.TIMEOUT),
    # Each pending promise stays on the heap: the chain meets the memory or the time limit first, as in a scorer.
    ("const loop = () => Promise.resolve().then(loop); await loop();", {ErrorKind.MEMORY, ErrorKind.TIMEOUT}),
    ("await import('fs');", ErrorKind.EXCEPTION),
    ("require('child_process');", ErrorKind.EXCEPTION),
    ("process.exit(1);", ErrorKind.EXCEPTION),
    ("await fetch('http://127.0.0.1/');", ErrorKind.EXCEPTION),
    ("new ArrayBuffer(2 ** 30);", ErrorKind.EXCEPTION),
    ("setTimeout(() => {}, 1);", ErrorKind.EXCEPTION),
]


class HostileProgramTests:
    @pytest.mark.parametrize(("body", "kind"), HOSTILE)
    def test_it_is_stopped_like_the_same_code_in_a_scorer(self, body: str, kind: ErrorKind | set[ErrorKind]) -> None:
        kinds = kind if isinstance(kind, set) else {kind}
        limits = MEMORY_LIMITS if kinds == {ErrorKind.MEMORY} else RUN_CODE_LIMITS
        as_program, returned = run(body, limits=limits)
        as_scorer = run_scorer(
            f"async () => {{ {body}\nreturn 1; }}", {"input": {}, "expected": None, "output": {}}, limits=limits
        )

        assert as_program.status == "errored" and as_program.error_kind in kinds
        assert as_scorer.error_kind in kinds
        assert returned is None

    def test_the_time_limit_is_the_scorers(self) -> None:
        outcome, _ = run("while (true) {}")
        assert RUN_CODE_LIMITS.timeout_seconds == 1.0
        assert outcome.error.startswith("Timed out after 1 s")
        assert outcome.duration_ms < 4000

    def test_the_host_is_unreachable_through_globals_or_the_function_constructor(self) -> None:
        code = """
        const probe = Function("return typeof process + ',' + typeof require + ',' + typeof fetch")();
        const viaConstructor = (async () => {}).constructor("return typeof globalThis.process")();
        const toolsSource = String(tools.get_weather);
        return [probe, await viaConstructor, typeof WebAssembly, typeof __evalhub_answer, toolsSource];
        """
        outcome, returned = run(code)

        assert outcome.ok, outcome.error
        probe, via_constructor, wasm, mailbox, source = json.loads(returned or "null")
        assert (probe, via_constructor, wasm) == ("undefined,undefined,undefined", "undefined", "undefined")
        # The only bridge is a JS function over the mailbox: no Python callable is bound in V8.
        assert mailbox == "function" and "call(name, args)" in source

    def test_forged_mailbox_answers_cannot_make_calls_beyond_the_cap(self) -> None:
        asked: list[dict[str, Any]] = []
        code = """
        const calls = [];
        for (let i = 0; i < 8; i++) calls.push(tools.get_weather({ i }).catch((e) => e.message));
        return await Promise.all(calls);
        """
        outcome, returned = run(code, max_calls=3, asked=asked)

        assert outcome.ok
        results = json.loads(returned or "null")
        assert [question["args"] for question in asked] == [{"i": 0}, {"i": 1}, {"i": 2}]
        assert results[:3] == [{"echo": {"i": 0}}, {"echo": {"i": 1}}, {"echo": {"i": 2}}]
        assert all("at most 3 tool calls" in message for message in results[3:])

    def test_odd_tool_names_are_called_with_bracket_access_and_arguments_must_be_an_object(self) -> None:
        asked: list[dict[str, Any]] = []
        code = """
        const ok = await tools["odd-name"]({ a: 1 });
        let refused = "";
        try { await tools.get_weather(5); } catch (e) { refused = e.message; }
        return { ok, refused };
        """
        outcome, returned = run(code, asked=asked)

        assert outcome.ok
        assert json.loads(returned or "null") == {
            "ok": {"echo": {"a": 1}},
            "refused": "tools.get_weather: pass the arguments as one object, e.g. tools.get_weather({ … }).",
        }
        assert asked == [{"name": "odd-name", "args": {"a": 1}}]

    def test_a_syntax_error_points_at_the_programs_own_line(self) -> None:
        outcome, _ = run("const a = 1;\nconst = 2;")
        assert outcome.error_kind == ErrorKind.SYNTAX_ERROR
        assert (outcome.line, outcome.column) == (2, 7)
        assert "2 | const = 2;" in outcome.error

    def test_time_waiting_for_tools_is_not_charged_to_the_program(self) -> None:
        import time

        def slow(question: dict[str, Any]) -> dict[str, Any]:
            time.sleep(0.6)
            return {"ok": True, "value": "1"}

        outcome, returned = run_program(
            "let n = 0; for (let i = 0; i < 3; i++) n += await tools.get_weather({}); return n;",
            tool_names=["get_weather"],
            max_calls=5,
            answer=slow,
        )
        assert outcome.ok, outcome.error
        assert returned == "3" and outcome.duration_ms > 1800
