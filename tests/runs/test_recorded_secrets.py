"""Secrets a model or a tool echoes are masked in everything a run records, and so on every page and report.

Real parts: the tiny MCP server over stdio holding a secret env var, the scripted OpenAI-compatible endpoint
(which knows the provider's API key), a code scorer in the V8 sandbox, the pages and the API.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.mcp_client.redact import MASK
from evalhub.servers.models import McpServer
from runs import pipeline
from runs.models import Run
from runs.services import run_start
from scorers.models import Scorer
from scorers.services import scorer_save
from tests.api.conftest import key_client
from tests.base import make_demo_server, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import API_KEY, Answer, ScriptedServer, completion, openai_error
from tests.evalhub.model_client.scripted_server import tool_call as scripted_tool_call

TINY_SERVER = "tests/evalhub/mcp_client/fixtures/tiny_server.py"
SERVER_SECRET = "srv-SECRET-token-4242"
SECRETS = (API_KEY, SERVER_SECRET)
LOGGING_SCORER = "async ({ input, expected, output }) => { console.log(JSON.stringify(output)); return 1; }"


def server_with_a_secret() -> McpServer:
    server = make_demo_server(name="Tiny", args=[TINY_SERVER])
    server.set_secrets(bearer_token="", env={"SECRET_TOKEN": SERVER_SECRET}, headers={})
    server.save()
    return server


def recorded(run: Run) -> str:
    """Everything the run recorded, as one text."""
    fields = (run.transcript, run.tool_calls, run.all_tool_calls, run.final_text, run.model_calls, run.error)
    return json.dumps(fields, ensure_ascii=False)


def execute(run: Run) -> Run:
    pipeline.execute_run(run.pk, worker="test-worker")
    run.refresh_from_db()
    return run


@pytest.mark.django_db(transaction=True)
class RecordedSecretsTests:
    def test_secrets_echoed_by_the_model_and_a_tool_are_masked_everywhere(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        echoed = f"key {API_KEY} token {SERVER_SECRET}"
        scripted.script(
            Answer(
                body=completion(
                    content=f"Echoing {SERVER_SECRET}.",
                    tool_calls=[scripted_tool_call("c1", "echo", json.dumps({"text": echoed}))],
                )
            ),
            Answer(body=completion(content=f"Your key is {API_KEY} and the token is {SERVER_SECRET}.")),
        )
        scenario = make_scenario(server_with_a_secret(), provider=make_scripted_provider(scripted.base_url))
        scenario.scorers.set([scorer_save(scorer=Scorer(name="Logs", kind="code", code=LOGGING_SCORER), user=alice)])

        run = execute(run_start(scenario=scenario, user=alice))

        assert run.status == "done"
        masked = f"key {MASK} token {MASK}"
        first, _last = run.transcript["steps"]
        assert first["text"] == f"Echoing {MASK}."
        assert first["toolCalls"] == [{"toolName": "echo", "args": {"text": masked}}]
        (call,) = run.all_tool_calls
        assert call["args"] == {"text": masked}
        assert call["result"]["content"][0]["text"] == masked
        assert run.final_text == run.transcript["finalText"] == f"Your key is {MASK} and the token is {MASK}."
        assert not any(secret in recorded(run) for secret in SECRETS)
        # The scorer was given the masked record.
        console = run.score_results.get().console
        assert MASK in console[0]["text"] and not any(secret in console[0]["text"] for secret in SECRETS)

        browser = Client()
        browser.force_login(alice)
        api = key_client(alice, ["evaluate:read", "evaluate:export"])
        pages = [
            browser.get(f"/runs/{run.pk}/"),
            api.get(f"/api/v1/runs/{run.pk}"),
            *(api.get(f"/api/v1/runs/{run.pk}/report?format={kind}") for kind in ("json", "markdown", "html", "junit")),
        ]
        assert [page.status_code for page in pages] == [200] * 6
        # Every one that shows the answer shows it masked (JUnit has only the scores' reasons).
        assert [MASK in page.content.decode() for page in pages] == [True] * 5 + [False]
        assert not any(secret in page.content.decode() for page in pages for secret in SECRETS)

    def test_a_provider_error_that_quotes_a_server_secret_is_masked(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        scripted.script(openai_error(403, f"Model not allowed for a request mentioning {SERVER_SECRET}"))
        scenario = make_scenario(server_with_a_secret(), provider=make_scripted_provider(scripted.base_url))

        run = execute(run_start(scenario=scenario, user=alice))

        assert run.status == "error" and run.error is not None
        assert run.error["message"] == (
            f"the provider refused access to model 'gpt-4o' (403): Model not allowed for a request mentioning {MASK}"
        )
