"""A 20 MB tool result and a 50 MB model answer: recorded within the caps, and the run's page and API stay fast.

Real parts only: a hostile stdio MCP server that writes its JSON-RPC by hand, the scripted OpenAI-compatible
endpoint through the openai SDK, the pipeline in this process, the page and the API through the test client.
"""

from __future__ import annotations

import hashlib
import time

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.servers.models import McpServer
from runs import pipeline
from runs.models import Run
from runs.record_limits import (
    FLOOR_BYTES,
    MODEL_MESSAGE_BYTES,
    RUN_BYTES,
    TOOL_CONTENT_TO_MODEL_BYTES,
    TOOL_RESULT_BYTES,
    compact_json,
    marker,
)
from runs.services import run_start
from tests.api.conftest import key_client
from tests.base import PROJECT_DIR, PYTHON, make_scenario, make_scripted_provider
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion, tool_call
from tests.runs.fixtures.hostile_values_server import flood_text

HOSTILE_SERVER = "tests/runs/fixtures/hostile_values_server.py"
TOOL_RESULT_SIZE = 20_000_000
ANSWER_SIZE = 50_000_000
# Generous for a loaded 2-core machine: about 0.1 s was measured.
FAST_SECONDS = 3.0


def hostile_server() -> McpServer:
    return McpServer.objects.create(
        name="Hostile values", transport="stdio", command=PYTHON, args=[HOSTILE_SERVER], cwd=str(PROJECT_DIR)
    )


def recorded_bytes(run: Run) -> int:
    """Bytes of everything the run recorded, every copy counted, as the caps measure them."""
    fields = (run.transcript, run.tool_calls, run.all_tool_calls, run.model_calls, run.final_text)
    return sum(len(compact_json(value)) for value in fields)


def timed_get(client: Client, url: str) -> tuple[int, int, float]:
    started = time.perf_counter()
    response = client.get(url)
    return response.status_code, len(response.content), time.perf_counter() - started


@pytest.mark.django_db(transaction=True)
class RecordedSizeTests:
    def test_a_20_mb_tool_result_and_a_50_mb_answer_keep_their_heads_sizes_and_hashes(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        answer = flood_text(ANSWER_SIZE)
        scripted.script(
            Answer(body=completion(tool_calls=[tool_call("c1", "flood", f'{{"size": {TOOL_RESULT_SIZE}}}')])),
            Answer(body=completion(content=answer)),
        )
        scenario = make_scenario(hostile_server(), provider=make_scripted_provider(scripted.base_url))
        run = run_start(scenario=scenario, user=alice)

        pipeline.execute_run(run.pk, worker="test-worker")

        run.refresh_from_db()
        assert (run.status, run.stop_reason) == ("done", "completed")
        text = flood_text(TOOL_RESULT_SIZE)
        full_result = {"content": [{"type": "text", "text": text}], "structuredContent": None, "isError": False}
        (call,) = run.all_tool_calls
        kept = call["result"]["content"][0]["text"]
        head = kept.removesuffix(marker(TOOL_RESULT_SIZE - len(kept.split("…truncated")[0])))
        assert kept != head and text.startswith(head)
        assert call["truncated"] == {
            "result": {
                "bytes": len(compact_json(full_result)),
                "sha256": hashlib.sha256(compact_json(full_result)).hexdigest(),
            }
        }
        assert TOOL_RESULT_BYTES - 4096 <= len(compact_json(call["result"])) <= TOOL_RESULT_BYTES
        assert (
            call["result"]["isError"] is False
            and run.transcript["steps"][0]["toolResults"][0]["result"] == call["result"]
        )

        final = run.final_text
        assert final == run.transcript["finalText"] == run.transcript["steps"][1]["text"]
        final_head = final.split("…truncated")[0]
        assert final == final_head + marker(ANSWER_SIZE - len(final_head)) and answer.startswith(final_head)
        assert len(final.encode()) <= MODEL_MESSAGE_BYTES
        assert run.transcript["steps"][1]["truncated"] == {
            "text": {"bytes": ANSWER_SIZE, "sha256": hashlib.sha256(answer.encode()).hexdigest()}
        }
        assert recorded_bytes(run) <= 3 * TOOL_RESULT_BYTES + 3 * MODEL_MESSAGE_BYTES + 10_000

        # The model read back the head of the tool result, not 20 MB.
        sent = scripted.received[1].json["messages"][-1]["content"]
        sent_head = sent.split("…truncated")[0]
        assert sent == sent_head + marker(TOOL_RESULT_SIZE - len(sent_head)) and text.startswith(sent_head)
        assert TOOL_CONTENT_TO_MODEL_BYTES - 4096 <= len(compact_json(sent)) <= TOOL_CONTENT_TO_MODEL_BYTES

        # Before the caps: a 144 MB page in 21 s and a 231 MB API answer in 9 s. Now about 1 MB in 0.1 s each.
        browser, api = _logged_in(alice), key_client(alice, ["evaluate:read"])
        browser.get("/runs/")  # the first page a process renders loads its templates: not what is measured
        status, size, seconds = timed_get(browser, f"/runs/{run.pk}/")
        assert status == 200 and size < 1_500_000 and seconds < FAST_SECONDS
        status, size, seconds = timed_get(api, f"/api/v1/runs/{run.pk}")
        assert status == 200 and size < 2_000_000 and seconds < FAST_SECONDS

    def test_past_the_runs_cap_each_further_result_keeps_only_its_head(
        self, alice: User, scripted: ScriptedServer
    ) -> None:
        calls = [tool_call(f"c{n}", "flood", '{"size": 300000}') for n in range(8)]
        scripted.script(Answer(body=completion(tool_calls=calls)), Answer(body=completion(content="Done.")))
        scenario = make_scenario(hostile_server(), provider=make_scripted_provider(scripted.base_url))
        run = run_start(scenario=scenario, user=alice)

        pipeline.execute_run(run.pk, worker="test-worker")

        run.refresh_from_db()
        assert run.status == "done" and len(run.all_tool_calls) == 8
        sizes = [len(compact_json(call["result"])) for call in run.all_tool_calls]
        # Each copy of a result counts: 3 copies of 256 KiB per result leaves room for five whole ones in 4 MiB.
        assert sizes[:5] == [sizes[0]] * 5 and TOOL_RESULT_BYTES - 4096 < sizes[0] <= TOOL_RESULT_BYTES
        assert all(size <= FLOOR_BYTES for size in sizes[6:])
        assert all(call["truncated"]["result"]["bytes"] > 300_000 for call in run.all_tool_calls)
        assert recorded_bytes(run) <= RUN_BYTES + 8 * 3 * FLOOR_BYTES + 10_000


def _logged_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client
