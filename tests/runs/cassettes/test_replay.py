"""Record → replay end to end: real demo MCP servers over stdio, the real openai SDK against the scripted endpoint."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User

from evalhub.scenarios.models import Scenario
from runs import pipeline
from runs.cassettes.services import ReplayRefused, run_replay
from runs.models import Run
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import API_KEY, Answer, ScriptedServer, completion, tool_call
from tests.runs.test_pipeline import execute

WEATHER = '{"latitude": 48.85, "longitude": 2.35}'


def weather_answers() -> list[Answer]:
    return [
        Answer(body=completion(tool_calls=[tool_call("c1", "get_weather", WEATHER)])),
        Answer(body=completion(content=f"Sunny in Paris. (key {API_KEY})")),
    ]


def replay(run: Run, user: User, mcp: str) -> Run:
    replayed = run_replay(run=run, user=user, mcp=mcp)
    pipeline.execute_run(replayed.pk, worker="test-worker")
    return Run.objects.get(pk=replayed.pk)


def recorded(scripted: ScriptedServer, user: User, **overrides: Any) -> Run:
    scripted.script(*weather_answers())
    scenario: Scenario = make_scenario(
        make_demo_server(), provider=make_scripted_provider(scripted.base_url), **overrides
    )
    return execute(scenario, user)


@pytest.mark.django_db(transaction=True)
class RecordTests:
    def test_a_run_records_its_model_and_mcp_exchanges_with_secrets_masked(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        run = recorded(scripted, alice)

        cassette = run.cassette
        data = cassette.data
        assert (cassette.model_exchanges, cassette.mcp_exchanges, cassette.truncated) == (2, 2, False)
        first, second = data["model"]
        assert first["request"]["model"] == "gpt-4o"
        assert first["request"]["tools"][0]["function"]["name"] == "get_weather"
        assert first["response"]["toolCalls"] == [{"id": "c1", "name": "get_weather", "arguments": WEATHER}]
        # The second request keeps only what is new: the assistant's call and the tool's answer.
        assert second["request"]["messagesKept"] == 1 and second["request"]["same"] == ["model", "tools", "max_tokens"]
        assert [m["role"] for m in second["request"]["messages"]] == ["assistant", "tool"]
        assert API_KEY not in str(data) and "[redacted]" in second["response"]["text"]
        listing, call = data["mcp"]
        assert listing["request"] == {"method": "tools/list", "params": {}}
        assert call["request"]["params"] == {"name": "get_weather", "arguments": {"latitude": 48.85, "longitude": 2.35}}
        assert call["response"]["result"]["structuredContent"]["latitude"] == 48.85
        assert call["turn"] == 1 and isinstance(call["ms"], int)
        assert cassette.size_bytes > 0


@pytest.mark.django_db(transaction=True)
class ReplayTests:
    def test_an_offline_replay_gives_the_same_verdict_with_no_model_call(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        run = recorded(scripted, alice)
        calls_before = len(scripted.received)

        replayed = replay(run, alice, "cassette")

        assert len(scripted.received) == calls_before == 2  # the scripted endpoint counted no new request
        assert (replayed.replay, replayed.replay_of_id) == ("cassette", run.pk)
        assert replayed.status == "done" and replayed.verdict == run.verdict == "pass"
        assert replayed.transcript["steps"][0]["toolCalls"] == run.transcript["steps"][0]["toolCalls"]
        assert replayed.final_text == run.final_text
        assert replayed.server_start == {"ms": 0, "transport": "cassette", "warm": False}
        # No server answered: its tool snapshots are untouched, and the replay keeps the one its run saw.
        assert replayed.tool_snapshot_id == run.tool_snapshot_id
        assert run.server is not None and run.server.snapshots.count() == 1
        assert replayed.input_tokens == run.input_tokens
        assert [call["cost_source"] for call in replayed.model_calls] == ["cassette", "cassette"]

        # A replay records too (what it was answered, in no time): it can be replayed in turn.
        def answers(cassette_run: Run) -> list[Any]:
            return [(e["request"], e["response"]) for e in cassette_run.cassette.data["mcp"]]

        assert answers(replayed) == answers(run)

    def test_a_replay_against_the_live_server_passes_when_it_answers_the_same(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        run = recorded(scripted, alice)

        replayed = replay(run, alice, "live")

        assert len(scripted.received) == 2
        assert (replayed.status, replayed.verdict, replayed.replay) == ("done", "pass", "live")

    def test_a_replay_against_a_server_that_changed_finds_the_change(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        # Each process of the counting server answers whoami with its own pid: the live server of the replay is
        # another build, as far as the cassette can tell.
        scripted.script(
            Answer(body=completion(tool_calls=[tool_call("c1", "whoami", "{}")])),
            Answer(body=completion(content="Hi.")),
        )
        server = make_demo_server(name="Counting", args=["tests/runs/fixtures/counting_server.py"])
        provider = make_scripted_provider(scripted.base_url)
        run = execute(make_scenario(server, provider=provider, expected_tools=["whoami"]), alice)
        assert run.verdict == "pass"

        replayed = replay(run, alice, "live")

        assert len(scripted.received) == 2
        assert (replayed.status, replayed.verdict, replayed.failure_cause) == ("error", "fail", "server")
        error = replayed.error
        assert error is not None and (error["step"], error["kind"]) == ("tool call whoami", "server_changed")
        miss = error["cassette_miss"]
        assert (miss["exchange"], miss["side"]) == ("tools/call #2 answer", "server")
        assert miss["field"] == "response.result.content[0].text"
        assert f'"pid":{run.all_tool_calls[0]["result"]["structuredContent"]["pid"]}' in miss["expected"].replace(
            " ", ""
        )
        assert miss["field"] in error["message"]

    def test_a_request_the_cassette_does_not_hold_is_a_miss_naming_the_field(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        run = recorded(scripted, alice)
        # What the agent sends changed since the recording (the run's settings are what a replay asks with).
        Run.objects.filter(pk=run.pk).update(settings={**run.settings, "system_prompt": "Answer in French."})
        run.refresh_from_db()

        replayed = replay(run, alice, "cassette")

        assert len(scripted.received) == 2
        assert (replayed.status, replayed.verdict, replayed.failure_cause) == ("error", "fail", "agent")
        error = replayed.error
        assert error is not None and (error["step"], error["kind"]) == ("model call 1", "cassette_miss")
        assert error["cassette_miss"] == {
            "exchange": "model request 1",
            "side": "agent",
            "field": "messages[0].role",
            "expected": "user",
            "actual": "system",
        }

    def test_a_run_still_running_cannot_be_replayed(self, alice: User, scripted: ScriptedServer) -> None:
        run = recorded(scripted, alice)
        Run.objects.filter(pk=run.pk).update(status="running")
        run.refresh_from_db()

        with pytest.raises(ReplayRefused, match="still running"):
            run_replay(run=run, user=alice, mcp="cassette")

    def test_a_replay_whose_cassette_was_deleted_meanwhile_is_inconclusive(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        run = recorded(scripted, alice)
        replayed = run_replay(run=run, user=alice, mcp="cassette")
        run.cassette.delete()

        pipeline.execute_run(replayed.pk, worker="test-worker")

        replayed.refresh_from_db()
        assert (replayed.status, replayed.verdict, replayed.failure_cause) == ("error", "inconclusive", "harness")
        assert replayed.error is not None and "cassette this run replays was deleted" in replayed.error["message"]
        assert len(scripted.received) == 2
