"""Direct tool tests within the limits of the rest of EvalHub (issue 23): a 20 MB result is cut to a run's cap for
one tool result, in the API and on the page.

Real parts: a hostile stdio MCP server that writes a 20 MB answer, the API and the page through the test client.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from runs.record_limits import TOOL_RESULT_BYTES, compact_json
from tests.api.conftest import key_client
from tests.runs.fixtures.hostile_values_server import flood_text
from tests.runs.test_recorded_sizes import TOOL_RESULT_SIZE, hostile_server

WRITER = ["evaluate:read", "evaluate:write"]


@pytest.mark.django_db(transaction=True)
class ToolTestResultCapTests:
    def test_the_api_answers_the_head_of_a_20_mb_result_with_its_size_and_hash(self, bob: User) -> None:
        server = hostile_server()

        answer = key_client(bob, WRITER).post(
            "/api/v1/tools/test?wait=30",
            {"server_id": server.pk, "tool": "flood", "arguments": {"size": TOOL_RESULT_SIZE}},
            content_type="application/json",
        )

        assert answer.status_code == 200, answer.content[:300]
        assert len(answer.content) < TOOL_RESULT_BYTES + 4096
        body = answer.json()
        cut = body["truncated"]["result"]
        assert cut["bytes"] > TOOL_RESULT_SIZE  # the text as JSON (newlines escaped) and the result around it
        assert len(cut["sha256"]) == 64 and set(cut["sha256"]) <= set("0123456789abcdef")
        head = body["result"]["content"][0]["text"]
        assert flood_text(TOOL_RESULT_SIZE).startswith(head[: head.index("…truncated")])
        assert len(compact_json(body["result"])) <= TOOL_RESULT_BYTES
        assert body["is_error"] is False

    def test_the_page_shows_the_head_says_it_was_cut_and_offers_no_save(self, bob: User) -> None:
        server = hostile_server()
        client = Client()
        client.force_login(bob)

        response = client.post(
            f"/servers/{server.pk}/tools/test/",
            {"tool": "flood", "arguments": json.dumps({"size": TOOL_RESULT_SIZE})},
            HTTP_HX_REQUEST="true",
        )

        html = response.content.decode()
        assert response.status_code == 200
        assert len(response.content) < 2 * TOOL_RESULT_BYTES
        assert 'id="tool-test-truncated"' in html and "only its head is shown" in html
        assert 'name="token"' not in html
