"""`evalhub run --record` then `--replay`: a suite recorded once with a model, replayed in CI with no key."""

from __future__ import annotations

import subprocess

import pytest
from django.contrib.auth.models import User

from evalhub.providers.models import Provider
from runs.models import Run
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call
from tests.runs.test_ci_command import evalhub, smoke


@pytest.mark.worker
class ReplayCommandTests:
    def test_a_recorded_tag_replays_with_no_key_and_no_model_call(
        self, worker: subprocess.Popen[bytes], scripted: ScriptedServer, alice: User
    ) -> None:
        scripted.script(
            Answer(body=completion(tool_calls=[tool_call("c1", "get_weather", '{"latitude": 1, "longitude": 2}')])),
            Answer(body=completion(content="Sunny.")),
        )
        provider = make_scripted_provider(scripted.base_url)
        smoke(make_scenario(make_demo_server(), provider=provider))

        recorded = evalhub("--tag", "smoke", "--wait", "--record")

        assert recorded.returncode == 0, recorded.stdout + recorded.stderr
        assert "Replay with no model and no key: evalhub run --tag smoke --replay latest" in recorded.stdout
        # CI has no key: the provider's is gone, and the endpoint would answer nothing more.
        provider = Provider.objects.get(pk=provider.pk)
        provider.set_secrets(api_key="", headers={})
        provider.save()
        requests = len(scripted.received)

        replayed = evalhub("--tag", "smoke", "--replay", "latest")

        assert replayed.returncode == 0, replayed.stdout + replayed.stderr
        assert len(scripted.received) == requests == 2
        replay = Run.objects.get(replay="cassette")
        assert replay.verdict == "pass" and replay.replay_of == Run.objects.get(replay="")
        assert f"#{replay.pk} (replay of #{replay.replay_of_id}, offline)" in replayed.stdout
        assert "no model was called" in replayed.stdout

    def test_an_experiment_with_no_recorded_run_is_an_infrastructure_error(self) -> None:
        result = evalhub("--replay", "987654")

        assert result.returncode == 2
        assert "Experiment 987654 has no recorded run to replay" in result.stderr
