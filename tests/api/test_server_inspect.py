"""POST /api/v1/servers/{id}/inspect waits a bounded time, then answers 202 while the inspection goes on (issue 18,
finding 13). Transactional: the inspection records its outcome from a pool thread with its own connection."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.servers.models import McpServer
from tests.api.conftest import KeyClient
from tests.api.helpers import assert_error
from tests.base import make_demo_server
from tests.evalhub.mcp_client.helpers import silent_endpoint
from tests.evalhub.servers.test_inspect_background import BOUND, WAIT, inspected, silent_server

WRITER = ("evaluate:read", "evaluate:write")


@pytest.fixture
def silent_url() -> Iterator[str]:
    with silent_endpoint() as url:
        yield url


@pytest.mark.django_db(transaction=True)
class BackgroundInspectApiTests:
    def test_it_answers_202_within_the_wait_and_the_server_shows_the_status(
        self, writer_api: Client, silent_url: str
    ) -> None:
        server = silent_server(silent_url)
        started = time.monotonic()

        response = writer_api.post(f"/api/v1/servers/{server.pk}/inspect?wait={WAIT}")

        assert time.monotonic() - started < BOUND
        assert response.status_code == 202, response.content
        body = response.json()
        assert body["status"] == "inspecting"
        assert body["message"] == (
            f"Still inspecting Silent; poll GET /api/v1/servers/{server.pk} until its inspection_status is idle."
        )
        assert writer_api.get(f"/api/v1/servers/{server.pk}").json()["inspection_status"] == "inspecting"

        inspected(server)

        after = writer_api.get(f"/api/v1/servers/{server.pk}").json()
        assert (after["inspection_status"], after["inspecting_since"]) == ("idle", None)
        assert after["last_error"]["kind"] == "connect_timeout"

    def test_a_wait_beyond_30_seconds_is_refused(self, writer_api: Client) -> None:
        server = make_demo_server()

        response = writer_api.post(f"/api/v1/servers/{server.pk}/inspect?wait=31")

        assert response.status_code == 400
        assert response.json()["error"]["message"] == "query.wait: Input should be less than or equal to 30"


@pytest.mark.django_db(transaction=True)
class BackgroundShareTests:
    """One user cannot fill the background pool (issue 23, finding 11): a slow connect holds its place until it
    ends, the user's next call past their share is a 429 saying what to do, and another user still gets in."""

    def test_one_user_holds_at_most_their_share_of_the_pool(
        self, settings: Any, make_client: KeyClient, alice: User, bob: User, charlie: User, silent_url: str
    ) -> None:
        settings.EVALHUB_BACKGROUND_SLOTS_PER_USER = 2
        # Staff's: only staff's servers may reach the silent endpoint's loopback address.
        servers = [
            McpServer.objects.create(
                name=f"Silent {index}", transport="http", url=silent_url, connect_timeout=4.0, created_by=alice
            )
            for index in range(3)
        ]
        bobs, charlies = make_client(bob, *WRITER), make_client(charlie, *WRITER)

        for server in servers[:2]:
            assert bobs.post(f"/api/v1/servers/{server.pk}/inspect?wait=0").status_code == 202
        refused = assert_error(bobs.post(f"/api/v1/servers/{servers[2].pk}/inspect?wait=0"), 429, "RATE_LIMIT_EXCEEDED")
        assert refused["message"] == (
            "You already have 2 inspections and tool tests running, the most one user may have at once "
            "(EVALHUB_BACKGROUND_SLOTS_PER_USER = 2) so that others get their turn. Wait for one to end (at most "
            "its server's connect timeout) and try again."
        )
        assert McpServer.objects.get(pk=servers[2].pk).inspection_state() == "idle"  # nothing was started

        assert charlies.post(f"/api/v1/servers/{servers[2].pk}/inspect?wait=0").status_code == 202
        for server in servers:
            inspected(server)
        # Their places are given back when the calls end.
        assert bobs.post(f"/api/v1/servers/{servers[0].pk}/inspect?wait=0").status_code == 202
        inspected(servers[0])
