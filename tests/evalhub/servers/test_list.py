"""The Servers list: what each server is, whether its last inspection worked, and whether its tools changed."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from evalhub.servers.models import McpServer
from tests.base import make_demo_server, make_scenario

TOOL = {"name": "get_weather", "title": None, "description": "Weather at a point.", "inputSchema": {"type": "object"}}


@pytest.mark.django_db
class ServerListTests:
    def test_it_explains_the_section_when_empty(self, bob_client: Client) -> None:
        content = bob_client.get("/servers/").content.decode()

        assert "No MCP servers registered" in content
        assert 'href="/servers/new/"' in content

    def test_it_lists_transport_target_status_and_tool_count(self, bob_client: Client) -> None:
        demo = make_demo_server()
        demo.record_tools([TOOL, {**TOOL, "name": "search_flights"}])
        McpServer.objects.filter(pk=demo.pk).update(last_inspected_at=timezone.now())
        make_scenario(demo)
        remote = McpServer.objects.create(name="Remote", transport="http", url="https://mcp.example.com/mcp")
        McpServer.objects.create(
            name="Broken",
            transport="sse",
            url="https://old.example.com/sse",
            last_error={"kind": "auth_failed", "message": "The server rejected the credentials.", "at": "2025-01-01"},
        )

        response = bob_client.get("/servers/")

        content = response.content.decode()
        assert [row["server"].name for row in response.context["rows"]] == ["Broken", "Demo travel server", "Remote"]
        assert "-m evalhub.demo_server" in content
        assert "https://mcp.example.com/mcp" in content
        assert ">Streamable HTTP<" in content and ">SSE<" in content and ">stdio<" in content
        assert '<span class="badge badge-pass">ok</span>' in content
        assert 'title="The server rejected the credentials.">failed</span>' in content
        assert '<span class="badge">not inspected</span>' in content
        demo_row = response.context["rows"][1]
        assert len(demo_row["snapshot"].tools) == 2 and demo_row["changes"] is None
        assert demo_row["server"].scenario_count == 1
        assert f'href="/servers/{remote.pk}/"' in content
        assert "tools changed" not in content

    def test_it_badges_a_server_whose_tools_changed_at_the_last_inspection(self, bob_client: Client) -> None:
        server = make_demo_server()
        server.record_tools([TOOL])
        McpServer.objects.filter(pk=server.pk).update(last_inspected_at=timezone.now())
        server.record_tools([TOOL, {**TOOL, "name": "book_flight"}])

        content = bob_client.get("/servers/").content.decode()

        assert 'title="Since the previous inspection: +1 added">tools changed</span>' in content

    def test_it_tells_non_staff_why_they_cannot_add_stdio_servers(
        self, bob_client: Client, alice_client: Client
    ) -> None:
        make_demo_server()

        assert "Only staff users can add or change stdio servers" in bob_client.get("/servers/").content.decode()
        assert "Only staff users can add or change stdio servers" not in alice_client.get("/servers/").content.decode()

    def test_it_requires_login(self, client: Client) -> None:
        response = client.get("/servers/")

        assert response.status_code == 302
        assert response["Location"] == "/login/?next=/servers/"
