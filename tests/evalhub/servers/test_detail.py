"""A server's page: how EvalHub reaches it, which secrets are set (never their values), who uses it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from evalhub.servers.models import McpServer
from tests.base import make_demo_server, make_scenario


@pytest.mark.django_db
class ServerDetailTests:
    def test_it_shows_a_stdio_servers_command_arguments_and_secret_names(self, alice_client: Client) -> None:
        server = make_demo_server(env={"LOG_LEVEL": "debug"})
        server.set_secrets(bearer_token="", env={"DEMO_TOKEN": "s3cr3t-value"}, headers={})
        server.save()
        make_scenario(server, name="Weather in Paris")

        response = alice_client.get(f"/servers/{server.pk}/")

        content = response.content.decode()
        assert response.status_code == 200
        assert '<code class="arg">-m</code> <code class="arg">evalhub.demo_server</code>' in content
        assert "<code>LOG_LEVEL=debug</code>" in content
        assert 'env DEMO_TOKEN <span class="badge secret-set">•••• set</span>' in content
        assert "s3cr3t-value" not in content
        assert "Weather in Paris" in content
        assert "Not inspected yet." in content
        assert f'href="/servers/{server.pk}/edit/"' in content

    def test_it_says_whether_runs_reuse_warm_processes(self, alice_client: Client) -> None:
        fresh = make_demo_server()
        warm = make_demo_server(name="Warm", warm_reuse=True, warm_recycle_after=5)

        fresh_page = alice_client.get(f"/servers/{fresh.pk}/").content.decode()
        warm_page = alice_client.get(f"/servers/{warm.pk}/").content.decode()

        assert "off: every run starts its own process" in fresh_page
        assert "each serves at most 5 runs and is closed after any error or a cancelled run" in warm_page
        assert "State a run leaves in the process is seen by the next one." in warm_page

    def test_it_shows_an_http_servers_url_and_headers(self, bob_client: Client, bob: User) -> None:
        server = McpServer(
            name="Remote", transport="http", url="https://mcp.example.com/mcp", headers={"X-T": "a"}, created_by=bob
        )
        server.set_secrets(bearer_token="tok", env={}, headers={})
        server.save()

        content = bob_client.get(f"/servers/{server.pk}/").content.decode()

        assert "https://mcp.example.com/mcp" in content and "<code>X-T: a</code>" in content
        assert 'Bearer token <span class="badge secret-set">•••• set</span>' in content
        assert f'href="/servers/{server.pk}/edit/"' in content  # its creator may edit an HTTP server

    def test_it_notes_settings_edited_after_the_last_inspection(self, alice_client: Client) -> None:
        server = make_demo_server()
        server.record_tools([])
        McpServer.objects.filter(pk=server.pk).update(
            last_inspection={
                "transport": "stdio",
                "server_name": "Demo travel server",
                "server_version": "1.0.0",
                "server_title": None,
                "protocol_version": "2026-07-28",
                "capabilities": {},
                "instructions": None,
                "resources": [],
                "resource_templates": [],
                "prompts": [],
                "tools_hash": "",
                "warnings": [],
                "stderr_tail": "",
                "duration_ms": 120,
            },
            last_inspected_at=timezone.now() - timedelta(minutes=5),
        )

        content = alice_client.get(f"/servers/{server.pk}/").content.decode()

        assert "The settings changed after this inspection: inspect again to check them." in content

    def test_htmx_gets_only_the_inspection_fragment(self, alice_client: Client) -> None:
        server = make_demo_server()

        response = alice_client.get(f"/servers/{server.pk}/", HTTP_HX_REQUEST="true")

        content = response.content.decode()
        assert content.lstrip().startswith('<div id="inspection">')
        assert "<html" not in content and "Connection</h2>" not in content

    def test_an_unknown_server_is_a_404(self, alice_client: Client) -> None:
        assert alice_client.get("/servers/999/").status_code == 404
