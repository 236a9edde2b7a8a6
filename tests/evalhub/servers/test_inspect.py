"""Test connection / Inspect through the view, against real servers: the demo server over stdio and Streamable HTTP,
and a few real failures (the full failure matrix is tests/evalhub/mcp_client's)."""

from __future__ import annotations

import http.server
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils.html import escape

from evalhub.servers.models import McpServer
from tests.base import PYTHON, make_demo_server
from tests.evalhub.mcp_client.helpers import FIXTURES, free_port, process_alive, start_demo, stop

DEMO_TOOLS = ["book_flight", "cancel_booking", "get_weather", "search_flights", "wait"]
TOKEN = "tok-inspect-93be01"
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture(scope="module")
def demo_http_url() -> Iterator[str]:
    process, port = start_demo("--http")
    yield f"http://127.0.0.1:{port}/mcp"
    stop(process)


@pytest.fixture
def status_401_url() -> Iterator[str]:
    """A plain HTTP endpoint that refuses every request with 401, like an MCP server given a wrong token."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def _refuse(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(401)
            self.send_header("content-length", "0")
            self.end_headers()

        do_GET = do_POST = do_DELETE = _refuse

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    server.shutdown()
    server.server_close()


def http_server(url: str, **fields: Any) -> McpServer:
    """An HTTP server that alice (staff) registered: servers on 127.0.0.1 are staff's to add."""
    server = McpServer(name=fields.pop("name", "Demo over HTTP"), transport="http", url=url, connect_timeout=10)
    server.created_by = User.objects.get(username="alice")
    for name, value in fields.items():
        setattr(server, name, value)
    server.set_secrets(bearer_token=TOKEN, env={}, headers={})
    server.save()
    return server


def inspect(client: Client, server: McpServer) -> Any:
    return client.post(f"/servers/{server.pk}/inspect/", **HTMX)


@pytest.mark.django_db
class ServerInspectTests:
    def test_it_inspects_the_demo_server_over_stdio(self, bob_client: Client) -> None:
        server = make_demo_server()

        response = inspect(bob_client, server)

        content = response.content.decode()
        assert response.status_code == 200
        assert content.lstrip().startswith('<div id="inspection">'), "only the fragment comes back"
        assert "<html" not in content
        for expected in ("Demo travel server", "1.0.0", "2026-07-28", "offline travel agency", "travel://airports"):
            assert expected in content
        assert "travel://airports/{code}" in content and "plan_trip" in content
        for name in DEMO_TOOLS:
            assert f'<code class="tool-name">{name}</code>' in content
        assert "Output schema" in content and "read-only" in content
        assert "No findings" in content
        server.refresh_from_db()
        snapshot = server.latest_snapshot()
        assert snapshot is not None and sorted(snapshot.tool_names) == DEMO_TOOLS
        assert server.last_inspection is not None and server.last_error is None
        assert snapshot.tools_hash[:12] in content

    def test_stdio_and_streamable_http_show_the_same_tools(self, alice_client: Client, demo_http_url: str) -> None:
        over_stdio = make_demo_server()
        over_http = http_server(demo_http_url)

        stdio_page = inspect(alice_client, over_stdio)
        http_page = inspect(alice_client, over_http)

        assert http_page.status_code == 200
        assert [t["name"] for t in http_page.context["tools"]] == [t["name"] for t in stdio_page.context["tools"]]
        assert http_page.context["tools"] == stdio_page.context["tools"]
        over_stdio.refresh_from_db()
        over_http.refresh_from_db()
        assert over_http.last_inspection["transport"] == "http"
        assert over_http.latest_snapshot().tools_hash == over_stdio.latest_snapshot().tools_hash

    def test_without_htmx_it_redirects_to_the_server_with_a_message(self, alice_client: Client) -> None:
        server = make_demo_server()

        response = alice_client.post(f"/servers/{server.pk}/inspect/", follow=True)

        assert response.redirect_chain == [(f"/servers/{server.pk}/", 302)]
        content = response.content.decode()
        assert f"Inspected “{server.name}” in " in content and "ms: 5 tools." in content
        assert "<html" in content and "search_flights" in content

    def test_it_says_which_tools_changed_since_the_last_inspection(self, alice_client: Client) -> None:
        server = make_demo_server()
        inspect(alice_client, server)
        server.refresh_from_db()
        tools = [dict(tool) for tool in server.latest_snapshot().tools if tool["name"] != "wait"]
        tools[0]["description"] = "An older description of the first tool."
        server.snapshots.all().delete()
        server.record_tools(tools)

        response = inspect(alice_client, server)

        content = response.content.decode()
        assert "Tools changed since last inspection:</strong> +1 added, 1 description changed." in content
        assert "Added wait." in content
        assert response.context["changes"].changed == {tools[0]["name"]: ["description"]}
        listing = alice_client.get("/servers/").content.decode()
        assert "tools changed" in listing

    def test_a_missing_command_is_one_sentence(self, alice_client: Client) -> None:
        server = make_demo_server(command="evalhub-no-such-server", args=[])

        response = inspect(alice_client, server)

        message = (
            "The command 'evalhub-no-such-server' was not found on PATH; install it on the machine running "
            "EvalHub or give its absolute path."
        )
        content = response.content.decode()
        assert response.status_code == 200
        assert f"<strong>Connection failed.</strong> {escape(message)}" in content
        assert "Traceback" not in content
        server.refresh_from_db()
        assert server.last_error["kind"] == "command_not_found"

    def test_a_server_that_exits_at_start_up_shows_its_stderr_without_secrets(self, alice_client: Client) -> None:
        server = make_demo_server(command=PYTHON, args=[str(FIXTURES / "exit_early.py")])
        server.set_secrets(bearer_token="", env={"DEMO_TOKEN": TOKEN}, headers={})
        server.save()

        response = inspect(alice_client, server)

        content = response.content.decode()
        # The code itself is asserted by tests/evalhub/mcp_client; see tests/browser/test_servers_browser.py.
        assert re.search(r"The server exited with code \d+ during start-up", content)
        assert "starting tiny-server 0.1" in content
        assert "error: upstream rejected token [redacted]" in content
        assert TOKEN not in content

    def test_a_closed_port_is_one_sentence(self, alice_client: Client) -> None:
        port = free_port()
        server = http_server(f"http://127.0.0.1:{port}/mcp")

        content = inspect(alice_client, server).content.decode()

        assert f"Could not connect to 127.0.0.1:{port} (connection refused); is the server running?" in content

    def test_a_401_says_check_the_token(self, alice_client: Client, status_401_url: str) -> None:
        server = http_server(status_401_url)

        content = inspect(alice_client, server).content.decode()

        assert "The server rejected the credentials (401 Unauthorized); check the bearer token and headers." in content
        assert TOKEN not in content
        listing = alice_client.get("/servers/").content.decode()
        assert 'badge badge-fail" title="The server rejected the credentials' in listing

    def test_a_failure_keeps_the_last_successful_inspection_visible(self, alice_client: Client) -> None:
        server = make_demo_server()
        inspect(alice_client, server)
        McpServer.objects.filter(pk=server.pk).update(command="evalhub-no-such-server")

        content = inspect(alice_client, server).content.decode()

        assert "Connection failed." in content
        assert "Below: the last successful inspection" in content
        assert '<code class="tool-name">get_weather</code>' in content

    def test_a_timed_out_inspection_leaves_no_process_behind(self, alice_client: Client, tmp_path: Path) -> None:
        pidfile = tmp_path / "pids"
        server = make_demo_server(
            command=PYTHON, args=[str(FIXTURES / "spawn_and_hang.py"), str(pidfile)], connect_timeout=1.0
        )

        started = time.monotonic()
        response = inspect(alice_client, server)
        elapsed = time.monotonic() - started

        assert response.status_code == 200
        assert "did not answer the MCP initialize request within the connect timeout (1 s)" in response.content.decode()
        server_pid, grandchild_pid = map(int, pidfile.read_text().split())
        # Both ignore SIGTERM: only the process-group SIGKILL stops them.
        assert not process_alive(server_pid)
        assert not process_alive(grandchild_pid)
        assert elapsed < 1.0 + 3.0

    def test_it_rejects_get(self, alice_client: Client) -> None:
        server = make_demo_server()

        assert alice_client.get(f"/servers/{server.pk}/inspect/").status_code == 405
