"""The judge cache: a verdict kept by (judge version, judge model, the exact transcript it saw), reused by re-scoring
and by replays, with no judge call."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import User

from runs import pipeline
from runs.cassettes.services import run_replay
from runs.models import Run
from runs.tasks import rescore_runs
from scorers.judge_cache import verdict_key
from scorers.models import CachedVerdict
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, openai_error, tool_call
from tests.runs.test_pipeline import execute
from tests.scorers.calibration.helpers import judge_answer, judge_scorer

RECORD: dict[str, Any] = {
    "input": "Weather in Paris?",
    "output": {
        "text": "Sunny.",
        "transcript": {
            "prompt": "Weather in Paris?",
            "steps": [{"text": "Sunny.", "toolCalls": [], "toolResults": []}],
        },
        "toolCalls": [{"toolName": "get_weather", "args": {}, "timestamp": 1, "durationMs": 5}],
    },
}


def key(**changes: Any) -> str | None:
    values: dict[str, Any] = {
        "provider": "1:http://x/v1",
        "model": "gpt-4o",
        "system_prompt": "Polite?",
        "labels": "GOOD|1\nBAD|0",
        "record": RECORD,
        **changes,
    }
    return verdict_key(**values)


class VerdictKeyTests:
    def test_the_judge_version_model_and_transcript_each_change_the_key(self) -> None:
        other_transcript = json.loads(json.dumps(RECORD))
        other_transcript["output"]["transcript"]["steps"][0]["text"] = "Rainy."

        keys = {
            key(),
            key(model="gpt-4o-mini"),
            key(provider="2:http://y/v1"),
            key(system_prompt="Brief?"),
            key(labels="GOOD|1\nBAD|0.5"),
            key(record=other_transcript),
        }

        assert len(keys) == 6 and None not in keys

    def test_what_the_judge_does_not_see_does_not_change_it(self) -> None:
        retimed = json.loads(json.dumps(RECORD))
        retimed["output"]["toolCalls"][0].update(timestamp=99, durationMs=77)

        assert key(record=retimed) == key()

    def test_the_order_of_an_objects_keys_does_not_change_it(self) -> None:
        # As PostgreSQL's jsonb gives a run's record back for a re-score: every object's keys in another order.
        def reversed_keys(value: Any) -> Any:
            if isinstance(value, dict):
                return {name: reversed_keys(value[name]) for name in reversed(list(value))}
            return [reversed_keys(item) for item in value] if isinstance(value, list) else value

        record = json.loads(json.dumps(RECORD))
        call = {"toolName": "get_weather", "args": {"latitude": 1, "longitude": 2}}
        record["output"]["transcript"]["steps"][0].update(
            toolCalls=[call], toolResults=[{"toolName": "get_weather", "result": {"a": 1, "b": {"c": 2, "d": 3}}}]
        )

        assert key(record=reversed_keys(record)) == key(record=record)

    def test_invalid_labels_have_no_key(self) -> None:
        assert key(labels="no pipe here") is None


def weather_answers() -> list[Answer]:
    return [
        Answer(body=completion(tool_calls=[tool_call("c1", "get_weather", '{"latitude": 48.85, "longitude": 2.35}')])),
        Answer(body=completion(content="Sunny in Paris, have a nice day!")),
    ]


@pytest.mark.django_db(transaction=True)
class JudgeCacheTests:
    def judged_run(self, scripted: ScriptedServer, user: User) -> Run:
        provider = make_scripted_provider(scripted.base_url)
        scenario = make_scenario(make_demo_server(), provider=provider)
        scenario.scorers.add(judge_scorer(user, provider))
        scripted.script(*weather_answers(), judge_answer("GOOD"))
        run = execute(scenario, user)
        assert len(scripted.received) == 3
        return run

    def test_a_replay_reuses_the_judges_verdict_with_no_model_call_at_all(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        run = self.judged_run(scripted, alice)
        judged = run.score_results.get(scorer_kind="judge")
        assert (judged.label, judged.passed, (judged.details or {}).get("cached")) == ("GOOD", True, None)

        replay = run_replay(run=run, user=alice, mcp="cassette")
        pipeline.execute_run(replay.pk, worker="test-worker")

        replay.refresh_from_db()
        assert len(scripted.received) == 3  # neither the agent's model nor the judge was asked
        cached = replay.score_results.get(scorer_kind="judge")
        assert (cached.label, cached.score, cached.passed, cached.cost_usd) == ("GOOD", 1.0, True, 0)
        assert cached.details is not None and cached.details["cached"] is True
        assert (replay.verdict, replay.score) == (run.verdict, run.score) == ("pass", 1.0)
        assert CachedVerdict.objects.get().hits == 1

    def test_re_scoring_reuses_it_and_the_run_page_says_so(
        self, alice: User, scripted: ScriptedServer, alice_client: Any
    ) -> None:
        run = self.judged_run(scripted, alice)

        rescore_runs([run.pk])

        assert len(scripted.received) == 3
        current = run.score_results.get(scorer_kind="judge", is_current=True)
        assert current.details is not None and current.details["cached"] is True
        page = alice_client.get(f"/runs/{run.pk}/").content.decode()
        assert page.count("cached verdict</span>") == 1

    def test_a_new_run_with_the_same_transcript_asks_the_judge_again(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        run = self.judged_run(scripted, alice)
        scripted.script(*weather_answers(), judge_answer("BAD"))

        again = execute(run.scenario, alice)

        assert len(scripted.received) == 6
        judged = again.score_results.get(scorer_kind="judge")
        assert (judged.label, (judged.details or {}).get("cached"), again.verdict) == ("BAD", None, "fail")

    def test_a_judge_error_is_not_kept(self, alice: User, scripted: ScriptedServer) -> None:
        provider = make_scripted_provider(scripted.base_url)
        scenario = make_scenario(make_demo_server(), provider=provider)
        scenario.scorers.add(judge_scorer(alice, provider))
        scripted.script(*weather_answers(), *[openai_error(401, "Incorrect API key provided.")])

        run = execute(scenario, alice)

        assert run.score_results.get(scorer_kind="judge").outcome == "errored"
        assert not CachedVerdict.objects.exists()
