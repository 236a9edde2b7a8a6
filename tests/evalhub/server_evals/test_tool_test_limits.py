"""Direct tool tests within the limits of the rest of EvalHub (issue 23): a call never holds a web thread longer
than EVALHUB_WEB_WAIT_SECONDS, it counts against the caller's share of the background pool, and a 20 MB result is
cut to a run's cap for one tool result, in the API and on the page.

Real parts: a server that accepts connections and never answers, a hostile stdio MCP server that writes a 20 MB
answer, the API and the page through the test client. Transactional: the pool thread has its own connection.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.servers.models import McpServer
from runs.record_limits import TOOL_RESULT_BYTES, compact_json
from tests.api.conftest import key_client
from tests.api.helpers import assert_error
from tests.base import PROJECT_DIR, PYTHON, wait_until
from tests.evalhub.mcp_client.helpers import silent_endpoint
from tests.runs.fixtures.hostile_values_server import flood_text
from tests.runs.test_recorded_sizes import TOOL_RESULT_SIZE, hostile_server

WRITER = ["evaluate:read", "evaluate:write"]
WAIT = 1
CONNECT_TIMEOUT = 4.0
# The wait, plus what the request itself costs on a loaded machine; under the 4 s the call takes.
BOUND = WAIT + 2.5


@pytest.fixture(autouse=True)
def short_wait(settings: Any) -> None:
    settings.EVALHUB_WEB_WAIT_SECONDS = WAIT


@pytest.fixture
def silent(alice: User) -> Iterator[McpServer]:
    """A server that never answers; staff's, since only staff's servers may reach a loopback address."""
    with silent_endpoint() as url:
        yield McpServer.objects.create(
            name="Silent", transport="http", url=url, connect_timeout=CONNECT_TIMEOUT, created_by=alice
        )


def call(client: Client, server: McpServer, wait: int = WAIT) -> Any:
    body = {"server_id": server.pk, "tool": "anything", "arguments": {}}
    return client.post(f"/api/v1/tools/test?wait={wait}", body, content_type="application/json")


@pytest.mark.django_db(transaction=True)
class ToolTestInBackgroundTests:
    def test_the_api_answers_202_within_the_wait_and_the_caller_polls_the_outcome(
        self, bob: User, charlie: User, silent: McpServer
    ) -> None:
        bobs = key_client(bob, WRITER)
        started = time.monotonic()

        answer = call(bobs, silent)

        assert time.monotonic() - started < BOUND
        assert answer.status_code == 202, answer.content
        test_id = answer.json()["id"]
        assert answer.json()["message"] == f"Still calling anything; poll GET /api/v1/tools/test/{test_id}."
        assert bobs.get(f"/api/v1/tools/test/{test_id}").status_code == 202
        # Hostile: another user's id, a made-up one, a path-like one and a huge one are all simply unknown.
        for client, wanted in (
            (key_client(charlie, WRITER), test_id),
            (bobs, "x" * 22),
            (bobs, "..%2F..%2Fsecret"),
            (bobs, "a" * 5000),
        ):
            assert_error(client.get(f"/api/v1/tools/test/{wanted}"), 404, "RESOURCE_NOT_FOUND")

        ended = wait_until(
            lambda: (r := bobs.get(f"/api/v1/tools/test/{test_id}")).status_code != 202 and r,
            timeout=CONNECT_TIMEOUT + 15,
            what="the background tool test to end",
        )
        assert assert_error(ended, 422, "SERVER_UNREACHABLE")["details"]["kind"] == "connect_timeout"

    def test_the_page_answers_within_the_wait_then_polls_until_the_outcome(self, bob: User, silent: McpServer) -> None:
        client = Client()
        client.force_login(bob)
        started = time.monotonic()

        response = client.post(
            f"/servers/{silent.pk}/tools/test/", {"tool": "anything", "arguments": "{}"}, HTTP_HX_REQUEST="true"
        )

        assert time.monotonic() - started < BOUND
        html = response.content.decode()
        assert "Still calling anything" in html and 'hx-trigger="every 1s"' in html
        poll = html.split('hx-get="', 1)[1].split('"', 1)[0]
        assert poll.startswith(f"/servers/{silent.pk}/tools/test/")
        ended = wait_until(
            lambda: "Still calling" not in (page := client.get(poll).content.decode()) and page,
            timeout=CONNECT_TIMEOUT + 15,
            what="the background tool test to end",
        )
        assert "message-error" in ended and "hx-get" not in ended

    def test_a_users_tool_tests_count_against_their_share_of_the_pool(
        self, settings: Any, bob: User, charlie: User, silent: McpServer
    ) -> None:
        settings.EVALHUB_BACKGROUND_SLOTS_PER_USER = 1
        bobs = key_client(bob, WRITER)
        first = call(bobs, silent, wait=0)
        assert first.status_code == 202

        refused = assert_error(call(bobs, silent, wait=0), 429, "RATE_LIMIT_EXCEEDED")
        assert refused["message"].startswith("You already have 1 inspections and tool tests running")
        other = call(key_client(charlie, WRITER), silent, wait=0)
        assert other.status_code == 202

        for client, answer in ((bobs, first), (key_client(charlie, WRITER), other)):
            wait_until(
                lambda c=client, a=answer: c.get(f"/api/v1/tools/test/{a.json()['id']}").status_code != 202,
                timeout=CONNECT_TIMEOUT + 15,
                what="the background tool tests to end",
            )


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
        if "Still calling" in html:  # 20 MB may take longer than the wait: poll as the page does
            poll = html.split('hx-get="', 1)[1].split('"', 1)[0]
            html = wait_until(
                lambda: "Still calling" not in (page := client.get(poll).content.decode()) and page,
                timeout=30,
                what="the 20 MB tool test to end",
            )
        assert response.status_code == 200
        assert len(html.encode()) < 2 * TOOL_RESULT_BYTES
        assert 'id="tool-test-truncated"' in html and "only its head is shown" in html
        assert 'name="token"' not in html


@pytest.mark.django_db(transaction=True)
class StdioProcessLimitTests:
    """Anyone may call staff's stdio servers, and each call starts the command on the web host: at most
    EVALHUB_WEB_STDIO_PROCESSES at once per web process (issue 23, second decision)."""

    def test_calls_past_the_limit_are_refused_and_say_so(
        self, settings: Any, alice: User, bob: User, charlie: User, silent: McpServer
    ) -> None:
        settings.EVALHUB_WEB_STDIO_PROCESSES = 1
        hanging = McpServer.objects.create(
            name="Hanging stdio",
            transport="stdio",
            command=PYTHON,
            args=[str(PROJECT_DIR / "tests/evalhub/mcp_client/fixtures/silent.py")],
            connect_timeout=CONNECT_TIMEOUT,
            created_by=alice,
        )
        bobs, charlies = key_client(bob, WRITER), key_client(charlie, WRITER)
        first = call(bobs, hanging, wait=0)
        assert first.status_code == 202, first.content

        refused = assert_error(call(charlies, hanging, wait=0), 429, "RATE_LIMIT_EXCEEDED")
        assert refused["message"] == (
            "EvalHub's web host is already running 1 stdio servers, its limit (EVALHUB_WEB_STDIO_PROCESSES = 1): "
            "each Inspect or tool test of a stdio server starts its command here. Try again when one ends (at most "
            "its server's connect timeout)."
        )
        inspect = charlies.post(f"/api/v1/servers/{hanging.pk}/inspect?wait=0")
        assert assert_error(inspect, 429, "RATE_LIMIT_EXCEEDED")["message"] == refused["message"]
        client = Client()
        client.force_login(charlie)
        resync = client.post(f"/servers/{hanging.pk}/evals/resync/", follow=True).content.decode()
        assert "Re-sync failed: the inspection did not succeed. EvalHub&#x27;s web host is already running" in resync
        # A server over HTTP starts nothing here: still accepted.
        other = call(charlies, silent, wait=0)
        assert other.status_code == 202

        ended(bobs, first)
        ended(charlies, other)
        again = call(charlies, hanging, wait=0)
        assert again.status_code == 202  # its place was given back
        ended(charlies, again)


def ended(client: Client, answer: Any) -> None:
    wait_until(
        lambda: client.get(f"/api/v1/tools/test/{answer.json()['id']}").status_code != 202,
        timeout=CONNECT_TIMEOUT + 15,
        what="the background tool test to end",
    )
