"""Nested calls pass the recorder's guards like top-level ones: sizes capped, NaN flagged, secrets masked.

Real parts: the hostile stdio MCP server (20 MB text, NaN, an echoed secret), the sandbox host, the scripted endpoint.
Run on SQLite and PostgreSQL (jsonb refuses NaN).
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User

from evalhub.servers.models import McpServer
from runs import pipeline
from runs.models import Run
from runs.services import run_start
from tests.base import PROJECT_DIR, PYTHON, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call

HOSTILE_SERVER = "tests/runs/fixtures/hostile_values_server.py"
SECRET = "s3cr3t-token-value-123"


@pytest.mark.django_db(transaction=True)
class NestedRecordTests:
    def test_nested_results_are_capped_flagged_and_masked(self, alice: User, scripted: ScriptedServer) -> None:
        code = """
        const big = await tools.flood({ size: 2000000 });
        const measured = await tools.measure({});
        const secret = await tools.echo_secret({});
        return { length: big.length, measured, secret };
        """
        scripted.script(
            Answer(body=completion(tool_calls=[tool_call("c1", "run_code", json.dumps({"code": code}))])),
            Answer(body=completion(content="Done.")),
        )
        server = McpServer(
            name="Hostile", transport="stdio", command=PYTHON, args=[HOSTILE_SERVER], cwd=str(PROJECT_DIR)
        )
        server.set_secrets(bearer_token="", env={"SECRET_TOKEN": SECRET}, headers={})
        server.save()
        scenario = make_scenario(server, provider=make_scripted_provider(scripted.base_url), tool_mode="code")
        run = run_start(scenario=scenario, user=alice)
        pipeline.execute_run(run.pk, worker="test-worker")
        run = Run.objects.get(pk=run.pk)

        top = run.tool_calls[0]
        flood, measure, secret = top["nestedCalls"]
        assert flood["truncated"]["result"]["bytes"] > 2_000_000
        assert len(json.dumps(flood["result"])) < 300_000
        assert measure["replacedValues"][0] == {"path": "result.structuredContent.mean", "was": "NaN"}
        assert (
            secret["isError"] is False
            and SECRET not in json.dumps(run.tool_calls)
            and SECRET not in json.dumps(run.all_tool_calls)
        )
        assert SECRET not in json.dumps(run.transcript)
        # The program itself saw the whole text (the sandbox accepts up to 8 MB per result).
        assert top["returnValue"]["length"] == 2_000_000
        assert [call["toolName"] for call in run.all_tool_calls] == ["run_code", "flood", "measure", "echo_secret"]
