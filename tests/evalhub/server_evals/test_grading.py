"""Every valid level and grading pair of the evals/list proposal, passing and failing for the right reason.

The evals come from the independent low-level fixture server; the agent and the judge are a scripted
OpenAI-compatible endpoint (the one remote part), so each verdict is decided by what the test scripts.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User

from evalhub.providers.models import SiteSettings
from evalhub.scenarios.models import Scenario
from evalhub.server_evals.services import shipped_evals_sync, side_effects_acknowledge
from evalhub.servers.services import server_inspect
from runs import pipeline
from runs.models import Run
from runs.services import run_start
from tests.base import make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call

from .test_sync import fixture_server, linked

pytestmark = pytest.mark.django_db(transaction=True)


def verdict(label: str, reason: str) -> Answer:
    return Answer(body=completion(content=json.dumps({"label": label, "reason": reason})))


def adds(call_id: str, a: int, b: int) -> Answer:
    return Answer(body=completion(tool_calls=[tool_call(call_id, "add", json.dumps({"a": a, "b": b}))]))


@pytest.fixture
def evals(alice: User, scripted: ScriptedServer) -> dict[str, Scenario]:
    """The fixture server's evals imported on the scripted model, judged by the scripted model too."""
    return imported(alice, scripted)


def imported(alice: User, scripted: ScriptedServer, *flags: str) -> dict[str, Scenario]:
    provider = make_scripted_provider(scripted.base_url)
    site = SiteSettings.load()
    site.judge_provider, site.judge_model = provider, "gpt-4o"
    site.save()
    server = fixture_server(*flags)
    side_effects_acknowledge(server=server, user=alice)
    shipped_evals_sync(server=server, user=alice, provider=provider, model="gpt-4o")
    return linked(server)


def execute(scenario: Scenario, user: User) -> Run:
    run = run_start(scenario=scenario, user=user)
    pipeline.execute_run(run.pk, worker="test-worker")
    return Run.objects.get(pk=run.pk)


class InvocationTests:
    def test_exact_match_passes_on_the_expected_tool_and_arguments(
        self, alice: User, evals: dict[str, Scenario], scripted: ScriptedServer
    ) -> None:
        scripted.script(adds("c1", 2, 3))

        run = execute(evals["add-invocation"], alice)

        assert (run.status, run.passed) == ("done", True)
        (request,) = scripted.received
        assert request.json["messages"][-1] == {"role": "user", "content": "What is 2 plus 3?"}
        assert [tool["function"]["name"] for tool in request.json["tools"]] == ["add", "replace_evals"]

    def test_exact_match_fails_on_a_wrong_argument_and_says_which(
        self, alice: User, evals: dict[str, Scenario], scripted: ScriptedServer
    ) -> None:
        scripted.script(adds("c1", 2, 4))

        run = execute(evals["add-invocation"], alice)

        assert (run.status, run.passed, run.score) == ("done", False, 0.0)
        (outcome,) = run.score_results.get().details["outcomes"]
        assert outcome["passed"] is False
        assert outcome["actual"] == "add called 1 time; the checked call (call 1) had 1 mismatched argument"
        assert [entry["message"] for entry in outcome["diff"]] == ["b: expected 3, got 4"]

    def test_a_judge_sees_the_models_choice_and_its_reason_and_model_are_kept(
        self, alice: User, evals: dict[str, Scenario], scripted: ScriptedServer
    ) -> None:
        scripted.script(adds("c1", 7, 9), verdict("FAIL", "The model added 7 and 9, not 7 and 8."))

        run = execute(evals["add-invocation-judge"], alice)

        assert run.passed is False
        result = run.score_results.get()
        assert (result.label, result.reason) == ("FAIL", "The model added 7 and 9, not 7 and 8.")
        assert result.details is not None and result.details["judge"] == {"provider": "Scripted", "model": "gpt-4o"}
        judged = json.dumps(scripted.received[-1].json["messages"])
        assert "PASS if the model calls add with 7 and 8." in judged and '\\"b\\": 9' in judged
        # The call was not executed: the judge sees the choice, and no stand-in result to grade instead.
        assert "tool result of add" not in judged and "(not executed)" not in judged


class ExecutionTests:
    def test_exact_match_passes_when_the_content_is_equal(self, alice: User, evals: dict[str, Scenario]) -> None:
        run = execute(evals["add-execution"], alice)

        assert (run.status, run.passed, run.model_calls) == ("done", True, [])

    def test_exact_match_fails_when_the_tool_answers_otherwise(self, alice: User, scripted: ScriptedServer) -> None:
        evals = imported(alice, scripted, "--off-by-one")

        run = execute(evals["add-execution"], alice)

        assert (run.passed, run.tool_calls[0]["result"]["content"]) == (False, [{"type": "text", "text": "6"}])
        (outcome,) = run.score_results.get().details["outcomes"]
        assert outcome["passed"] is False and outcome["kind"] == "tool_result"

    @pytest.mark.parametrize(("label", "passed"), [("PASS", True), ("FAIL", False)])
    def test_a_judge_sees_the_tool_result(
        self, alice: User, evals: dict[str, Scenario], scripted: ScriptedServer, label: str, passed: bool
    ) -> None:
        scripted.script(verdict(label, "It says 42." if passed else "It does not say 42."))

        run = execute(evals["add-judge"], alice)

        assert run.passed is passed
        (judge_request,) = scripted.received  # no agent call: only the judge
        judged = json.dumps(judge_request.json["messages"])
        assert "tool result of add: 42" in judged
        assert "[final answer]" not in judged  # there is no model, hence no answer to find missing


class ScenarioTests:
    @pytest.mark.parametrize(("label", "passed"), [("PASS", True), ("FAIL", False)])
    def test_the_agent_loop_runs_and_the_judge_reads_the_transcript(
        self, alice: User, evals: dict[str, Scenario], scripted: ScriptedServer, label: str, passed: bool
    ) -> None:
        scripted.script(
            adds("c1", 1, 2),
            adds("c2", 3, 3),
            Answer(body=completion(content="1 + 2 + 3 = 6.")),
            verdict(label, "The answer is 6." if passed else "Wrong."),
        )

        run = execute(evals["sum-scenario"], alice)

        assert (run.status, run.passed, len(run.tool_calls)) == ("done", passed, 2)
        assert run.final_text == "1 + 2 + 3 = 6."
        assert "1 + 2 + 3 = 6." in json.dumps(scripted.received[-1].json["messages"])


class ListChangedTests:
    def test_a_list_changed_during_a_run_marks_the_evals_stale_until_the_next_inspection(
        self, alice: User, evals: dict[str, Scenario], scripted: ScriptedServer
    ) -> None:
        scenario = evals["sum-scenario"]
        scripted.script(
            Answer(body=completion(tool_calls=[tool_call("c1", "replace_evals", "{}")])),
            Answer(body=completion(content="Done.")),
            verdict("PASS", "Fine."),
        )

        execute(scenario, alice)

        server = scenario.server
        server.refresh_from_db()
        assert server.evals_changed_at is not None
        server_inspect(server=server)
        server.refresh_from_db()
        assert server.evals_changed_at is None
