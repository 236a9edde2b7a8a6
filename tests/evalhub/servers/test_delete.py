"""Deleting a server: never while scenarios use it; its runs keep their results."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.servers.models import McpServer
from tests.base import make_demo_server, make_scenario


@pytest.mark.django_db
class ServerDeleteTests:
    def test_it_asks_first_then_deletes(self, alice_client: Client) -> None:
        server = make_demo_server()

        page = alice_client.get(f"/servers/{server.pk}/delete/")
        response = alice_client.post(f"/servers/{server.pk}/delete/", follow=True)

        assert "Delete <strong>Demo travel server</strong> and its tool snapshots?" in page.content.decode()
        assert response.redirect_chain == [("/servers/", 302)]
        assert "Deleted server “Demo travel server”." in response.content.decode()
        assert not McpServer.objects.exists()

    def test_a_server_used_by_scenarios_is_not_deleted_and_the_page_says_which(self, alice_client: Client) -> None:
        server = make_demo_server()
        make_scenario(server, name="Weather in Paris")
        make_scenario(server, name="Flights to Rome")

        page = alice_client.get(f"/servers/{server.pk}/delete/").content.decode()
        response = alice_client.post(f"/servers/{server.pk}/delete/", follow=True)

        assert "cannot be deleted: 2 scenarios use it." in page
        assert "Flights to Rome" in page and "Weather in Paris" in page
        assert 'type="submit">Delete' not in page
        assert McpServer.objects.filter(pk=server.pk).exists()
        assert (
            "Demo travel server is used by 2 scenarios (“Flights to Rome”, “Weather in Paris”): point them at "
            "another server or delete them first."
        ) in response.content.decode()

    def test_non_staff_delete_their_http_servers_but_not_stdio_ones(self, bob_client: Client, bob: User) -> None:
        stdio = make_demo_server(created_by=bob)
        remote = McpServer.objects.create(
            name="Remote", transport="http", url="https://mcp.example.com/mcp", created_by=bob
        )

        assert bob_client.get(f"/servers/{stdio.pk}/delete/").status_code == 403
        assert bob_client.post(f"/servers/{stdio.pk}/delete/").status_code == 403
        assert bob_client.post(f"/servers/{remote.pk}/delete/").status_code == 302
        assert list(McpServer.objects.values_list("name", flat=True)) == ["Demo travel server"]
