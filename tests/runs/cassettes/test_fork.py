"""Forks at each kind of change: replayed up to the step (no model call), live after it with the change."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from runs import pipeline
from runs.cassettes.services import ReplayRefused, run_fork
from runs.models import Run
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call
from tests.runs.test_pipeline import execute

WEATHER = '{"latitude": 48.85, "longitude": 2.35}'


@pytest.fixture
def parent(alice: User, scripted: ScriptedServer) -> Run:
    scripted.script(
        Answer(body=completion(tool_calls=[tool_call("c1", "get_weather", WEATHER)])),
        Answer(body=completion(content="Sunny in Paris.")),
    )
    provider = make_scripted_provider(scripted.base_url, model_names=["gpt-4o", "gpt-4o-mini"])
    run = execute(make_scenario(make_demo_server(), provider=provider, system_prompt="You are terse."), alice)
    assert run.verdict == "pass" and len(scripted.received) == 2
    scripted.received.clear()
    return run


def fork(run: Run, user: User, at_step: int, change: dict[str, Any]) -> Run:
    forked = run_fork(run=run, user=user, at_step=at_step, change=change)
    pipeline.execute_run(forked.pk, worker="test-worker")
    return Run.objects.get(pk=forked.pk)


@pytest.mark.django_db(transaction=True)
class ForkTests:
    def test_a_replaced_tool_result_is_what_the_live_model_reads_next(
        self, alice: User, scripted: ScriptedServer, parent: Run
    ) -> None:
        scripted.script(Answer(body=completion(content="The weather service is down, sorry.")))
        replacement = {"content": [{"type": "text", "text": "503 upstream down"}], "isError": True}

        forked = fork(parent, alice, 1, {"kind": "tool_result", "call": 0, "result": replacement})

        (request,) = scripted.received  # model call 1 came from the cassette, model call 2 was live
        assert request.json["messages"][-1] == {"role": "tool", "tool_call_id": "c1", "content": "503 upstream down"}
        assert (forked.replay, forked.replay_of_id, forked.status) == ("fork", parent.pk, "done")
        assert forked.all_tool_calls[0]["result"] == replacement
        assert forked.final_text == "The weather service is down, sorry."
        assert forked.settings["fork"] == {
            "at_step": 1,
            "change": {"kind": "tool_result", "call": 0, "result": replacement},
        }
        # The replaced result is an error the server did not give: the verdict rule sees a tool error, as it would live.
        assert forked.verdict == "fail" and forked.failure_cause == "server"

    def test_a_changed_tool_description_is_offered_from_the_step_on(
        self, alice: User, scripted: ScriptedServer, parent: Run
    ) -> None:
        scripted.script(
            Answer(body=completion(tool_calls=[tool_call("c9", "get_weather", WEATHER)])),
            Answer(body=completion(content="Still sunny.")),
        )

        forked = fork(parent, alice, 1, {"kind": "tool", "tool": "get_weather", "description": "Weather, in Kelvin."})

        first, second = scripted.received
        offered = {tool["function"]["name"]: tool["function"] for tool in first.json["tools"]}
        assert offered["get_weather"]["description"] == "Weather, in Kelvin."
        assert second.json["tools"] == first.json["tools"]
        assert forked.all_tool_calls[0]["result"]["structuredContent"]["latitude"] == 48.85  # the live server answered
        assert (forked.status, forked.verdict, forked.final_text) == ("done", "pass", "Still sunny.")

    def test_a_changed_system_prompt_reaches_the_model_from_the_step_on(
        self, alice: User, scripted: ScriptedServer, parent: Run
    ) -> None:
        scripted.script(Answer(body=completion(content="Soleil.")))

        forked = fork(parent, alice, 2, {"kind": "system_prompt", "system_prompt": "Answer in French."})

        (request,) = scripted.received
        assert request.json["messages"][0] == {"role": "system", "content": "Answer in French."}
        assert [m["role"] for m in request.json["messages"]] == ["system", "user", "assistant", "tool"]
        # The tool call of step 1 came from the cassette's record of it, checked against the live server.
        assert forked.all_tool_calls[0]["args"] == {"latitude": 48.85, "longitude": 2.35}
        assert (forked.final_text, forked.verdict) == ("Soleil.", "pass")

    def test_another_model_answers_from_the_step_on(self, alice: User, scripted: ScriptedServer, parent: Run) -> None:
        scripted.script(Answer(body=completion(content="Sunny.", model="gpt-4o-mini-2024-07-18")))

        forked = fork(parent, alice, 2, {"kind": "model", "model": "gpt-4o-mini"})

        (request,) = scripted.received
        assert request.json["model"] == "gpt-4o-mini"
        assert [call["model"] for call in forked.model_calls] == ["gpt-4o-2024-08-06", "gpt-4o-mini-2024-07-18"]
        assert forked.model_calls[0]["cost_source"] == "cassette"

    def test_a_model_the_provider_does_not_serve_is_refused(self, alice: User, parent: Run) -> None:
        with pytest.raises(ReplayRefused, match="does not serve 'o9'") as refused:
            run_fork(run=parent, user=alice, at_step=2, change={"kind": "model", "model": "o9"})

        assert refused.value.field == "change" and Run.objects.count() == 1

    def test_a_step_without_that_tool_call_is_refused(self, alice: User, parent: Run) -> None:
        change = {"kind": "tool_result", "call": 1, "result": {"content": []}}
        with pytest.raises(ReplayRefused, match="step 1 made 1 tool call"):
            run_fork(run=parent, user=alice, at_step=1, change=change)
