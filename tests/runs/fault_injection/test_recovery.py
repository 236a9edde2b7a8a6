"""The fault timeline and the recovery checks, from records laid out by hand (times in ms)."""

from __future__ import annotations

from typing import Any

from runs.fault_injection.recovery import evaluate_recovery, fault_timeline
from runs.fault_injection.spec import Recovery

START = 1_000_000


def tool(name: str, at: int, took: int, *, error: bool = False, effect: str = "", **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {"toolName": name, "timestamp": START + at, "durationMs": took, "isError": error}
    if effect:
        record["injectedFault"] = {"name": f"{effect} {name}", "kind": effect, "effect": effect, "nth": 1}
    return record | extra


def model(step: int, at: int, took: int) -> dict[str, Any]:
    return {"step": step, "timestamp": START + at, "latency_ms": took}


# The agent calls search, which hangs 1000 ms; the model then (1000-1300) retries it, it answers (1300-1350), and
# the model answers the user (1350-1500).
CALLS = [tool("search", 100, 1000, error=True, effect="hang"), tool("search", 1300, 50)]
MODELS = [model(1, 0, 100), model(2, 1100, 200), model(3, 1350, 150)]
STEPS = [{"toolCalls": [{"toolName": "search"}]}, {"toolCalls": [{"toolName": "search"}]}, {"text": "done"}]


def timeline(calls: list[dict[str, Any]] = CALLS, models: list[dict[str, Any]] = MODELS) -> list[dict[str, Any]]:
    return fault_timeline(calls=calls, model_calls=models, steps=STEPS, started_ms=START)


class FaultTimelineTests:
    def test_it_says_when_and_what_the_agent_did_next(self) -> None:
        assert timeline() == [
            {
                "call": 1,
                "tool": "search",
                "fault": "hang search",
                "kind": "hang",
                "effect": "hang",
                "at_ms": 100,
                "duration_ms": 1000,
                "outcome": "timed out",
                "cut_off": False,
                "next": "retried search",
                "acted_ms": 1200,
            }
        ]

    def test_a_run_that_ended_during_the_fault_never_acted(self) -> None:
        [entry] = timeline([tool("search", 100, 900, effect="hang", cancelled=True)], MODELS[:1])
        assert (entry["outcome"], entry["next"], entry["acted_ms"]) == ("cut off", "nothing: the run ended", None)


class EvaluateRecoveryTests:
    def check(self, recovery: Recovery, final_text: str = "", calls: list[dict[str, Any]] = CALLS) -> list[Any]:
        result = evaluate_recovery(recovery, timeline=timeline(calls), calls=calls, final_text=final_text)
        return [(check.name, check.passed, check.reason) for check in result.checks]

    def test_detection_within_and_past_the_limit(self) -> None:
        assert self.check(Recovery(max_detection_ms=1200)) == [
            ("max_detection_ms", True, "the agent acted within 1200 ms (limit 1200 ms)")
        ]
        assert self.check(Recovery(max_detection_ms=1199)) == [
            (
                "max_detection_ms",
                False,
                "after the hang on call 1 (search) the agent acted only after 1200 ms (limit 1199 ms)",
            )
        ]

    def test_recovery_within_and_past_the_limit_and_never(self) -> None:
        assert self.check(Recovery(max_recovery_ms=1250)) == [
            ("max_recovery_ms", True, "search succeeded 1250 ms after the first fault")
        ]
        assert self.check(Recovery(max_recovery_ms=1000))[0][1] is False
        never = [CALLS[0], tool("search", 1300, 1000, error=True, effect="hang")]
        assert self.check(Recovery(max_recovery_ms=9000), calls=never) == [
            ("max_recovery_ms", False, "no call succeeded after the first fault: the agent never recovered")
        ]

    def test_clean_timeout_needs_the_timeout_within_the_detection_limit(self) -> None:
        assert self.check(Recovery(require_clean_timeout=True))[0][1] is True
        assert self.check(Recovery(max_detection_ms=1300, require_clean_timeout=True))[1][1] is True
        assert self.check(Recovery(max_detection_ms=900, require_clean_timeout=True))[1] == (
            "require_clean_timeout",
            False,
            "the hung call 1 (search) timed out after 1000 ms, past the 900 ms detection limit: lower the server's "
            "request timeout",
        )

    def test_told_the_user(self) -> None:
        told = Recovery(require_told_user=True)
        assert self.check(told, "The search timed out once; here are the flights.")[0][1] is True
        assert self.check(told, "Here are the flights.") == [
            ("require_told_user", False, "the agent did not tell the user: the final answer does not say so")
        ]

    def test_a_run_no_fault_fired_in_passes_saying_so(self) -> None:
        result = evaluate_recovery(
            Recovery(max_detection_ms=1, max_recovery_ms=1, require_told_user=True),
            timeline=[],
            calls=[],
            final_text="",
        )
        assert result.passed
        assert {check.reason for check in result.checks} == {"no fault was injected in this run"}
