"""Inspect never holds a web request for long (issue 18, finding 13).

The server here accepts TCP connections and never answers, the audit's case: the inspection runs until its connect
timeout (8 s), but the page answers within EVALHUB_WEB_WAIT_SECONDS (1 s here) and polls; the pool thread records
the outcome. Transactional: the pool thread has its own database connection.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client, override_settings
from django.utils import timezone

from evalhub.api_keys.models import ApiKey
from evalhub.servers.models import McpServer
from tests.base import PROJECT_DIR, PYTHON, child_env, free_port, make_alice, make_demo_server, wait_until
from tests.evalhub.mcp_client.helpers import silent_endpoint
from tests.evalhub.test_serve import health

HTMX = {"HTTP_HX_REQUEST": "true"}
WAIT = 1
CONNECT_TIMEOUT = 8.0
# The wait, plus what the request itself costs on a loaded machine; well under the 8 s the inspection takes.
BOUND = WAIT + 3


@pytest.fixture
def silent_url() -> Iterator[str]:
    with silent_endpoint() as url:
        yield url


def silent_server(url: str) -> McpServer:
    # Added by staff: only staff's servers may reach loopback addresses such as the silent endpoint's.
    staff = User.objects.filter(is_staff=True).first() or make_alice()
    return McpServer.objects.create(
        name="Silent", transport="http", url=url, connect_timeout=CONNECT_TIMEOUT, created_by=staff
    )


def inspected(server: McpServer) -> McpServer:
    """The server once the background inspection has recorded its outcome."""
    wait_until(
        lambda: McpServer.objects.get(pk=server.pk).inspection_state() == "idle",
        timeout=CONNECT_TIMEOUT + 15,
        what="the background inspection to record its outcome",
    )
    return McpServer.objects.get(pk=server.pk)


@pytest.fixture(autouse=True)
def short_wait(settings: Any) -> None:
    settings.EVALHUB_WEB_WAIT_SECONDS = WAIT


@pytest.mark.django_db(transaction=True)
class BackgroundInspectTests:
    def test_the_page_answers_within_the_wait_then_polls_until_the_outcome(
        self, alice_client: Client, silent_url: str
    ) -> None:
        server = silent_server(silent_url)
        started = time.monotonic()

        response = alice_client.post(f"/servers/{server.pk}/inspect/", **HTMX)

        assert time.monotonic() - started < BOUND
        html = response.content.decode()
        assert html.lstrip().startswith(f'<div id="inspection" hx-get="/servers/{server.pk}/" hx-trigger="every 1s"')
        assert "<strong>Inspecting…</strong>" in html
        # Meanwhile the web app answers everyone else.
        assert alice_client.get("/health").status_code == 200
        assert McpServer.objects.get(pk=server.pk).inspection_state() == "inspecting"

        server = inspected(server)

        assert server.last_error is not None and server.last_error["kind"] == "connect_timeout"
        fragment = alice_client.get(f"/servers/{server.pk}/", **HTMX).content.decode()
        assert fragment.lstrip().startswith('<div id="inspection">')  # no more polling
        assert "Connection failed." in fragment and "within the connect timeout (8 s)" in fragment

    def test_a_second_click_does_not_start_a_second_inspection(self, alice_client: Client, silent_url: str) -> None:
        server = silent_server(silent_url)
        alice_client.post(f"/servers/{server.pk}/inspect/", **HTMX)
        since = McpServer.objects.get(pk=server.pk).inspecting_since
        started = time.monotonic()

        response = alice_client.post(f"/servers/{server.pk}/inspect/", **HTMX)

        assert time.monotonic() - started < 0.8  # it did not wait for a second inspection
        assert "<strong>Inspecting…</strong>" in response.content.decode()
        assert McpServer.objects.get(pk=server.pk).inspecting_since == since
        inspected(server)

    def test_without_htmx_it_redirects_and_says_it_is_still_inspecting(
        self, alice_client: Client, silent_url: str
    ) -> None:
        server = silent_server(silent_url)

        response = alice_client.post(f"/servers/{server.pk}/inspect/", follow=True)

        assert [str(m) for m in response.context["messages"]] == [
            "Still inspecting “Silent”: the Inspection panel shows the result when it is done."
        ]
        inspected(server)

    def test_an_inspection_cut_off_by_a_stopped_web_process_says_so_and_can_be_restarted(
        self, alice_client: Client
    ) -> None:
        server = make_demo_server()
        past = timezone.now() - timedelta(minutes=5)
        McpServer.objects.filter(pk=server.pk).update(inspecting_since=past, inspecting_until=past)

        page = alice_client.get(f"/servers/{server.pk}/").content.decode()
        assert "did not finish: EvalHub's web process stopped during it. Press Inspect again." in page

        with override_settings(EVALHUB_WEB_WAIT_SECONDS=60):
            alice_client.post(f"/servers/{server.pk}/inspect/", **HTMX)

        server.refresh_from_db()
        assert (server.inspection_state(), server.last_error) == ("idle", None)
        assert "get_weather" in server.latest_snapshot().tool_names  # type: ignore[union-attr]


@pytest.mark.django_db(transaction=True)
class ProductionServerTests:
    def test_health_answers_on_one_sync_gunicorn_worker_while_a_silent_server_is_inspected(
        self, alice: User, silent_url: str, tmp_path: Path
    ) -> None:
        # The README's production command, which the audit measured: /health waited 19 s behind one Inspect.
        server = silent_server(silent_url)
        _, key = ApiKey.issue(user=alice, name="gunicorn", scopes=["evaluate:read", "evaluate:write"])
        port = free_port()
        with (tmp_path / "gunicorn.log").open("wb") as log:
            process = subprocess.Popen(
                [PYTHON, "-m", "gunicorn", "evalhub.wsgi", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
                cwd=PROJECT_DIR,
                env=child_env(EVALHUB_WEB_WAIT_SECONDS=str(WAIT)),
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            wait_until(lambda: health(port), timeout=60, what="gunicorn to answer /health")
            answers: dict[str, tuple[int, float]] = {}

            def inspect() -> None:
                started = time.monotonic()
                request = urllib.request.Request(
                    f"http://127.0.0.1:{port}/api/v1/servers/{server.pk}/inspect",
                    method="POST",
                    headers={"Authorization": f"Bearer {key}"},
                )
                with urllib.request.urlopen(request, timeout=30) as response:
                    answers["inspect"] = (response.status, time.monotonic() - started)

            thread = threading.Thread(target=inspect)
            thread.start()
            wait_until(
                lambda: McpServer.objects.get(pk=server.pk).inspection_state() == "inspecting",
                timeout=10,
                what="the inspection to start",
            )
            started = time.monotonic()
            assert health(port) is not None  # queued behind the Inspect request on the one worker, at most its wait
            behind_inspect = time.monotonic() - started
            thread.join(timeout=30)

            started = time.monotonic()
            assert health(port) is not None
            during_inspection = time.monotonic() - started

            assert answers["inspect"][0] == 202 and answers["inspect"][1] < BOUND
            assert behind_inspect < BOUND
            assert during_inspection < 1.0
            assert McpServer.objects.get(pk=server.pk).inspection_state() == "inspecting"
            assert inspected(server).last_error["kind"] == "connect_timeout"  # type: ignore[index]
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)
