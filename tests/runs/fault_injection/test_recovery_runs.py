"""Recovery expectations on real runs (the demo server over stdio, a scripted model): passed and failed as a gating
check, shown as a fault timeline; and the verdict of a run whose time limit struck during an injected hang."""

from __future__ import annotations

import pytest

from runs.models import Run
from tests.base import make_alice
from tests.evalhub.model_client.scripted_server import ScriptedServer
from tests.runs.fault_injection.helpers import answer, call, demo_server, run_with_faults

RECOVERY = {"max_detection_ms": 4000, "max_recovery_ms": 6000, "require_clean_timeout": True, "require_told_user": True}


def recovery_result(run: Run) -> dict[str, object]:
    result = run.score_results.get(scorer_name="Fault recovery", is_current=True)
    assert (result.scorer_kind, result.gating) == ("recovery", True)
    return {"passed": result.passed, "checks": {c["name"]: c["passed"] for c in result.details["checks"]}}


@pytest.mark.django_db(transaction=True)
class RecoveryRunTests:
    def test_an_agent_that_retries_and_tells_the_user_passes(self, scripted: ScriptedServer) -> None:
        alice = make_alice()
        server = demo_server("stdio", owner=alice, request_timeout=1)
        run = run_with_faults(
            scripted,
            server,
            alice,
            {
                "faults": [{"name": "hung weather", "tool": "get_weather", "kind": "hang", "on_call": 1}],
                "recovery": RECOVERY,
            },
            call("get_weather"),
            call("get_weather", call_id="call_2"),
            answer("The weather service timed out once; on retry: 18 °C in Paris."),
        )
        assert recovery_result(run) == {
            "passed": True,
            "checks": dict.fromkeys(
                ["max_detection_ms", "max_recovery_ms", "require_clean_timeout", "require_told_user"], True
            ),
        }
        assert (run.verdict, run.failure_cause) == ("pass", ""), run.failure_reason

    def test_an_agent_that_hides_a_wedged_server_fails_as_the_agents(self, scripted: ScriptedServer) -> None:
        alice = make_alice()
        server = demo_server("stdio", owner=alice, request_timeout=1)
        run = run_with_faults(
            scripted,
            server,
            alice,
            {"faults": [{"kind": "wedged"}], "recovery": RECOVERY},
            call("get_weather"),
            call("get_weather", call_id="call_2"),
            answer("It is sunny in Paris."),
        )
        assert recovery_result(run) == {
            "passed": False,
            "checks": {
                "max_detection_ms": True,
                "max_recovery_ms": False,
                "require_clean_timeout": True,
                "require_told_user": False,
            },
        }
        assert (run.verdict, run.failure_cause) == ("fail", "agent")
        assert "no call succeeded after the first fault: the agent never recovered" in run.failure_reason

    def test_a_time_limit_during_an_injected_hang_is_the_harnesss(
        self, scripted: ScriptedServer, demo_http_port: int
    ) -> None:
        alice = make_alice()
        # Over HTTP: no server process to start, so on a loaded machine the limit still strikes in the hang.
        server = demo_server("http", owner=alice, request_timeout=60, port=demo_http_port)
        run = run_with_faults(
            scripted,
            server,
            alice,
            {"faults": [{"kind": "hang"}]},
            call("get_weather"),
            time_limit_seconds=10,
        )
        assert (run.stop_reason, run.verdict, run.failure_cause) == ("time_limit", "inconclusive", "harness"), (
            run.phase,
            run.failure_reason,
            run.all_tool_calls,
        )
        assert run.failure_reason == (
            "harness: the injected hang on get_weather was still running at the 10 s time limit; lower the request "
            "timeout or raise the limit"
        )
