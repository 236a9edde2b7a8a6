"""POST /api/v1/servers/{id}/inspect waits a bounded time, then answers 202 while the inspection goes on (issue 18,
finding 13). Transactional: the inspection records its outcome from a pool thread with its own connection."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from django.test import Client

from tests.base import make_demo_server
from tests.evalhub.mcp_client.helpers import silent_endpoint
from tests.evalhub.servers.test_inspect_background import BOUND, WAIT, inspected, silent_server


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
