"""NaN and Infinity from a tool or in a model's tool-call arguments are recorded as text and flagged, not a crash.

They only crashed on PostgreSQL (jsonb refuses them; SQLite stores them): CI runs this module on both.
Real parts: a hostile stdio MCP server writing its JSON with Python's json.dumps, the scripted endpoint.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.servers.models import McpServer
from runs import pipeline
from runs.models import Run
from runs.services import run_start
from tests.base import PROJECT_DIR, PYTHON, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call

HOSTILE_SERVER = "tests/runs/fixtures/hostile_values_server.py"
MEASURED = {"mean": "NaN", "max": "Infinity", "min": "-Infinity", "count": 3}
MEASURED_FLAGS = [
    {"path": "result.structuredContent.mean", "was": "NaN"},
    {"path": "result.structuredContent.max", "was": "Infinity"},
    {"path": "result.structuredContent.min", "was": "-Infinity"},
]


def execute(scripted: ScriptedServer, user: User, *answers: Answer, **provider: Any) -> Run:
    scripted.script(*answers)
    server = McpServer.objects.create(
        name="Hostile values", transport="stdio", command=PYTHON, args=[HOSTILE_SERVER], cwd=str(PROJECT_DIR)
    )
    scenario = make_scenario(server, provider=make_scripted_provider(scripted.base_url, **provider))
    run = run_start(scenario=scenario, user=user)
    pipeline.execute_run(run.pk, worker="test-worker")
    return Run.objects.get(pk=run.pk)


@pytest.mark.django_db(transaction=True)
class RecordedValuesTests:
    def test_nan_and_infinity_in_a_tool_result_are_kept_as_text_and_flagged(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        run = execute(
            scripted,
            alice,
            Answer(body=completion(tool_calls=[tool_call("c1", "measure", "{}")])),
            Answer(body=completion(content="The mean is not a number.")),
        )

        assert (run.status, run.stop_reason, run.error) == ("done", "completed", None)
        (call,) = run.all_tool_calls
        assert call["result"]["structuredContent"] == MEASURED
        assert call["result"]["content"][0]["text"] == '{"mean": NaN, "max": Infinity, "min": -Infinity, "count": 3}'
        assert call["replacedValues"] == MEASURED_FLAGS
        assert run.transcript["steps"][0]["toolResults"] == [{"toolName": "measure", "result": call["result"]}]
        # The model read the tool's own text, as the tool wrote it.
        assert scripted.received[1].json["messages"][-1]["content"] == call["result"]["content"][0]["text"]

        browser = Client()
        browser.force_login(alice)
        page = browser.get(f"/runs/{run.pk}/").content.decode()
        assert (
            'title="NaN at result.structuredContent.mean, Infinity at result.structuredContent.max, -Infinity at '
            'result.structuredContent.min: not JSON, recorded as text">non-JSON values</span>'
        ) in page

    def test_nan_in_the_models_tool_call_arguments_is_kept_as_text_and_flagged(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        arguments = '{"threshold": NaN, "limits": [1, Infinity]}'
        run = execute(
            scripted,
            alice,
            Answer(body=completion(tool_calls=[tool_call("c1", "measure", arguments)])),
            Answer(body=completion(content="Done.")),
        )

        assert (run.status, run.error) == ("done", None)
        args_flags = [{"path": "args.threshold", "was": "NaN"}, {"path": "args.limits[1]", "was": "Infinity"}]
        assert run.transcript["steps"][0]["toolCalls"] == [
            {
                "toolName": "measure",
                "args": {"threshold": "NaN", "limits": [1, "Infinity"]},
                "replacedValues": args_flags,
            }
        ]
        (call,) = run.all_tool_calls
        assert call["args"] == {"threshold": "NaN", "limits": [1, "Infinity"]}
        assert call["replacedValues"] == args_flags + MEASURED_FLAGS

    def test_an_internal_error_says_so_without_the_database_errors_text(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        # A provider reporting negative token counts breaks a database constraint: a bug of ours to fix, whose
        # SQL and values must not reach users in the meantime.
        # (With the user's own price, genai-prices, which refuses negative counts, is not asked.)
        price = {"gpt-4o": {"input": "2.50", "output": "10"}}
        run = execute(scripted, alice, Answer(body=completion(content="Hi.", prompt_tokens=-5)), price_overrides=price)

        assert run.status == "error"
        assert run.error == {
            "step": "worker",
            "kind": "internal",
            "message": "EvalHub hit an internal error (IntegrityError); the details are in the worker's log.",
        }
