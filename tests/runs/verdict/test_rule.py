"""The verdict rule, table-tested: every combination of gating/advisory, skipped/errored, errors and stops."""

from __future__ import annotations

import pytest

from runs.verdict import Check, Decision, RunFacts, ToolCallFact, decide, stage_chain

GATE_PASS = Check("Expectations", "expectations", True, True, "3/3 expectations passed")
GATE_FAIL = Check("Expectations", "expectations", False, True, "2/3 expectations passed; failed: get_weather called")
ADVISORY_FAIL = Check("Tone", "judge", False, False, "BAD")
JUDGE_SKIPPED = Check("Helpful", "judge", None, True, "skipped — choose a judge model in Settings")
CODE_ERRORED = Check("Coords", "code", None, True, "Scorer error (runtime): counted as 0.")
ADVISORY_SKIPPED = Check("Tone", "judge", None, False, "skipped")
OK_CALL = ToolCallFact("get_weather")
SERVER_ERROR = ToolCallFact("get_weather", "server")
AGENT_ERROR = ToolCallFact("get_weather", "agent")


def done(*checks: Check, score: float | None = 1.0, calls: tuple[ToolCallFact, ...] = (OK_CALL,), **kw) -> RunFacts:
    return RunFacts(status="done", checks=checks, score=score, calls=calls, **kw)


class GatesTests:
    @pytest.mark.parametrize(
        ("facts", "expected"),
        [
            (done(GATE_PASS), ("pass", "")),
            (done(GATE_PASS, ADVISORY_FAIL, score=0.75), ("pass", "")),
            (done(GATE_PASS, ADVISORY_SKIPPED), ("pass", "")),
            (done(GATE_FAIL, score=0.9), ("fail", "agent")),
            (done(GATE_PASS, score=0.5), ("fail", "agent")),
            (done(GATE_PASS, JUDGE_SKIPPED), ("inconclusive", "judge")),
            (done(GATE_PASS, CODE_ERRORED, score=0.5), ("inconclusive", "judge")),
            # A failed gate decides even when another gate could not.
            (done(GATE_FAIL, JUDGE_SKIPPED), ("fail", "agent")),
            (done(JUDGE_SKIPPED, score=None), ("inconclusive", "judge")),
            (done(ADVISORY_SKIPPED, score=None), ("inconclusive", "judge")),
            (done(ADVISORY_FAIL, score=0.0), ("fail", "agent")),
        ],
    )
    def test_verdict_and_cause(self, facts: RunFacts, expected: tuple[str, str]) -> None:
        decision = decide(facts)
        assert (decision.verdict, decision.cause) == expected
        assert decision.passed == {"pass": True, "fail": False}.get(expected[0])
        assert bool(decision.reason) == (expected[0] != "pass")

    def test_the_reason_names_the_failed_gate(self) -> None:
        assert decide(done(GATE_FAIL)).reason == "agent: " + GATE_FAIL.reason

    def test_a_low_score_says_score_and_threshold(self) -> None:
        decision = decide(done(GATE_PASS, score=0.5, threshold=0.7))
        assert decision.reason == "agent: the score 0.50 is below the threshold 0.70"


class AttributionTests:
    def test_a_tool_that_errored_on_every_call_is_the_servers_failure(self) -> None:
        decision = decide(done(GATE_FAIL, calls=(SERVER_ERROR,) * 3))
        assert (decision.verdict, decision.cause, decision.stage) == ("fail", "server", "result returned")
        assert decision.reason == "server: get_weather returned an error on 3 of 3 calls"

    def test_a_server_error_on_a_run_that_passes_its_gates_does_not_fail_it(self) -> None:
        assert decide(done(GATE_PASS, calls=(SERVER_ERROR, OK_CALL))).verdict == "pass"

    def test_expected_tool_errors_blame_the_agent_not_the_server(self) -> None:
        decision = decide(done(GATE_FAIL, calls=(SERVER_ERROR,), tool_errors_expected=True))
        assert decision.cause == "agent"

    def test_refused_calls_are_the_agents(self) -> None:
        decision = decide(done(GATE_FAIL, calls=(AGENT_ERROR,)))
        assert (decision.cause, decision.stage) == ("agent", "tool called")

    def test_no_call_at_all_fails_at_tool_chosen(self) -> None:
        decision = decide(done(GATE_FAIL, calls=()))
        assert (decision.cause, decision.stage) == ("agent", "tool chosen")
        assert decision.reason.startswith("agent: called no tool; ")


class EndedTests:
    @pytest.mark.parametrize(
        ("step", "kind", "expected"),
        [
            ("model call 1", "rate_limited", ("inconclusive", "provider")),
            ("model call 2", "timeout", ("inconclusive", "provider")),
            ("model call 1", "auth", ("inconclusive", "provider")),
            ("model call 1", "bad_url", ("inconclusive", "provider")),
            ("model call 1", "server_error", ("inconclusive", "provider")),
            ("model call 1", "malformed_tool_arguments", ("fail", "agent")),
            ("simulated user", "rate_limited", ("inconclusive", "simulator")),
            ("connect", "connection_refused", ("fail", "server")),
            ("connect", "command_not_found", ("fail", "server")),
            ("list tools", "protocol_error", ("fail", "server")),
            ("agent", "server_crashed", ("fail", "server")),
            ("agent", "request_timeout", ("fail", "server")),
            ("tool call", "protocol_error", ("fail", "server")),
            ("connect", "secret_unavailable", ("inconclusive", "harness")),
            ("connect", "deleted", ("inconclusive", "harness")),
            ("worker", "internal", ("inconclusive", "harness")),
            ("score", "internal", ("inconclusive", "harness")),
            ("tool call get_weather", "worker_lost", ("inconclusive", "harness")),
            ("model call 1", "worker_lost", ("inconclusive", "harness")),
            ("simulated user", "internal", ("inconclusive", "harness")),
        ],
    )
    def test_errors(self, step: str, kind: str, expected: tuple[str, str]) -> None:
        decision = decide(RunFacts(status="error", error={"step": step, "kind": kind, "message": "It broke.\nMore"}))
        assert (decision.verdict, decision.cause) == expected
        assert decision.reason == f"{expected[1]}: It broke."

    @pytest.mark.parametrize(
        ("stop", "limits", "reason"),
        [
            ("max_tool_calls", {"max_tool_calls": 25}, "budget: stopped at the 25-tool-call limit"),
            ("max_turns", {"max_turns": 10}, "budget: stopped at the 10-turn limit"),
            ("time_limit", {"time_limit_seconds": 60}, "budget: stopped at the 60 s time limit"),
            ("token_budget", {"token_budget": 1000}, "budget: stopped at the 1000-token budget"),
            ("cost_budget", {"cost_budget_usd": "0.01"}, "budget: stopped at the $0.01 cost budget"),
        ],
    )
    def test_budget_stops_fail_on_the_budget(self, stop: str, limits: dict, reason: str) -> None:
        decision = decide(done(GATE_PASS, stop_reason=stop, limits=limits))
        assert (decision.verdict, decision.cause, decision.reason) == ("fail", "budget", reason)

    def test_a_time_limit_reached_inside_a_tool_call_is_the_servers(self) -> None:
        facts = done(GATE_PASS, stop_reason="time_limit", phase="tool call wait", limits={"time_limit_seconds": 5})
        decision = decide(facts)
        assert (decision.cause, decision.reason) == ("server", "server: wait was still running at the 5 s time limit")

    def test_a_time_limit_reached_while_an_injected_fault_held_the_call_is_the_harnesss(self) -> None:
        phase = "injected fault: hang on wait"
        decision = decide(done(GATE_PASS, stop_reason="time_limit", phase=phase, limits={"time_limit_seconds": 5}))
        assert (decision.verdict, decision.cause, decision.reason) == (
            "inconclusive",
            "harness",
            "harness: the injected hang on wait was still running at the 5 s time limit; lower the request timeout "
            "or raise the limit",
        )

    def test_a_call_an_injected_fault_failed_blames_neither_server_nor_agent(self) -> None:
        calls = (ToolCallFact("search", failed_by="fault"), ToolCallFact("search"))
        decision = decide(done(GATE_FAIL, calls=calls))
        assert (decision.verdict, decision.cause) == ("fail", "agent")
        assert not decision.reason.startswith("server")

    @pytest.mark.parametrize("status", ["queued", "running", "cancelled"])
    def test_unfinished_and_cancelled_runs_have_no_verdict(self, status: str) -> None:
        assert decide(RunFacts(status=status)) == Decision("")


class StageChainTests:
    def test_a_pass_passes_every_stage(self) -> None:
        facts = done(GATE_PASS)
        assert {s["state"] for s in stage_chain(decide(facts), facts)} == {"passed"}

    def test_a_pass_without_tool_calls_skips_the_tool_stages(self) -> None:
        facts = done(GATE_PASS, calls=())
        states = [s["state"] for s in stage_chain(decide(facts), facts)]
        assert states == ["passed", "passed", "skipped", "skipped", "skipped", "passed"]

    def test_a_server_failure_fails_result_returned_and_the_rest_is_not_reached(self) -> None:
        facts = done(GATE_FAIL, calls=(SERVER_ERROR,))
        chain = stage_chain(decide(facts), facts)
        assert [(s["stage"], s["state"]) for s in chain] == [
            ("connected", "passed"),
            ("tools listed", "passed"),
            ("tool chosen", "passed"),
            ("tool called", "passed"),
            ("result returned", "failed"),
            ("request satisfied", "not reached"),
        ]

    def test_a_connect_failure_fails_the_first_stage(self) -> None:
        facts = RunFacts(status="error", error={"step": "connect", "kind": "connection_refused", "message": "x"})
        assert [s["state"] for s in stage_chain(decide(facts), facts)][:2] == ["failed", "not reached"]

    def test_a_provider_outage_is_undecided_not_failed(self) -> None:
        facts = RunFacts(status="error", error={"step": "model call 1", "kind": "timeout", "message": "x"})
        chain = stage_chain(decide(facts), facts)
        assert [s["state"] for s in chain] == ["passed", "passed", "undecided", *["not reached"] * 3]
