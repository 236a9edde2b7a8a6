"""Runs against a hostile server or provider, end to end in this process (issue 18, findings 3, 4 and 16): only
valid tools are offered, a dripping provider ends the run at its model call, and a crashed server's stderr is on
the run page."""

from __future__ import annotations

import time

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call
from tests.runs.test_pipeline import TINY_SERVER, execute

MALFORMED_SERVER = "tests/evalhub/mcp_client/fixtures/malformed_tools_server.py"


@pytest.mark.django_db(transaction=True)
class HostileRunTests:
    def test_only_the_valid_tools_are_offered_to_the_model(self, alice: User, scripted: ScriptedServer) -> None:
        scripted.script(
            Answer(body=completion(tool_calls=[tool_call("c1", "get_weather", '{"latitude": 1, "longitude": 2}')])),
            Answer(body=completion(content="18 °C")),
        )
        server = make_demo_server(name="Malformed", args=[MALFORMED_SERVER])
        scenario = make_scenario(server, provider=make_scripted_provider(scripted.base_url))

        run = execute(scenario, alice)

        assert (run.status, run.stop_reason) == ("done", "completed")
        offered = [tool["function"]["name"] for tool in scripted.received[0].json["tools"]]
        assert offered == ["get_weather"]
        assert run.tool_snapshot is not None and run.tool_snapshot.tool_names == ["get_weather"]
        assert run.all_tool_calls[0]["result"]["content"][0]["text"] == "get_weather: 18 °C and sunny"

    def test_a_dripping_provider_ends_the_run_at_its_model_call(self, alice: User, scripted: ScriptedServer) -> None:
        # Before, only the run's time limit (120 s here) stopped it.
        scripted.script(Answer(body=completion(content="Sunny"), drip=0.05))
        provider = make_scripted_provider(scripted.base_url, timeout=1.0)
        started = time.monotonic()

        run = execute(make_scenario(make_demo_server(), provider=provider), alice, time_limit_seconds=120)

        assert time.monotonic() - started < 15
        assert (run.status, run.stop_reason) == ("error", "error")
        assert run.error is not None and (run.error["step"], run.error["kind"]) == ("model call 1", "timeout")
        assert run.error["message"].startswith(f"{scripted.base_url} started answering but had not finished within 1 s")

    def test_a_crashed_server_s_stderr_is_kept_and_shown_on_the_run_page(
        self, alice: User, alice_client: Client, scripted: ScriptedServer
    ) -> None:
        scripted.script(Answer(body=completion(tool_calls=[tool_call("c1", "crash", "{}")])))
        server = make_demo_server(name="Tiny", args=[TINY_SERVER])

        run = execute(make_scenario(server, provider=make_scripted_provider(scripted.base_url)), alice)

        assert run.error is not None and run.error["message"].endswith("its stderr output usually says why.")
        assert run.error["stderr_tail"] == "tiny: about to crash hard"
        page = alice_client.get(f"/runs/{run.pk}/").content.decode()
        assert (
            'What the server wrote to stderr (last lines)</summary><pre class="code">tiny: about to crash hard</pre>'
            in page
        )
