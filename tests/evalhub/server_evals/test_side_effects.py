"""Issue 23, decision 1: calling a server's tools for real is acknowledged by the server's owner or staff, and a
tool test of a tool that looks destructive needs that acknowledgment; against the demo server (a real stdio
process whose book_flight and cancel_booking are destructive) and an HTTP server of bob's."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.server_evals.destructive import looks_destructive
from evalhub.servers.models import McpServer
from evalhub.servers.services import server_inspect
from tests.base import make_demo_server

pytestmark = pytest.mark.django_db

DEMO_REFUSAL = "Only staff can allow the tools of “Demo travel server” to be called for real."


class LooksDestructiveTests:
    @pytest.mark.parametrize(
        ("tool", "expected"),
        [
            ({"name": "delete_file"}, True),
            ({"name": "bookFlight"}, True),
            ({"name": "payments.send"}, True),
            ({"name": "DropTable"}, True),
            ({"name": "rename", "annotations": {"destructiveHint": True}}, True),
            ({"name": "get_weather", "annotations": {"readOnlyHint": True}}, False),
            ({"name": "add"}, False),  # no annotations: the MCP default (destructive) is not assumed
            ({"name": "get_posts"}, False),
        ],
    )
    def test_annotations_and_names(self, tool: dict[str, object], expected: bool) -> None:
        assert looks_destructive(tool) is expected


class AcknowledgeTests:
    def test_only_the_owner_or_staff_may_acknowledge_and_others_are_told_who(
        self, bob: User, bob_client: Client, charlie: User
    ) -> None:
        server = McpServer.objects.create(name="Bob's", url="https://mcp.example.com/mcp", created_by=bob)
        charlie_client = Client()
        charlie_client.force_login(charlie)

        refused = charlie_client.post(f"/servers/{server.pk}/side-effects/acknowledge/")

        assert refused.status_code == 403
        refusal = "Only bob (who added it) or staff can allow the tools of “Bob&#x27;s” to be called for real."
        assert refusal in refused.content.decode()
        server.refresh_from_db()
        assert server.side_effects_acknowledged_at is None

        assert bob_client.post(f"/servers/{server.pk}/side-effects/acknowledge/").status_code == 302
        server.refresh_from_db()
        assert server.side_effects_acknowledged_by == bob


class ToolTestTests:
    def test_a_destructive_tool_waits_for_staffs_acknowledgment_a_harmless_one_does_not(
        self, alice_client: Client, bob_client: Client
    ) -> None:
        server = make_demo_server()  # stdio: staff's
        server_inspect(server=server)
        button = "I understand: allow execution evals on this server"
        his_page = bob_client.get(f"/servers/{server.pk}/").content.decode()
        assert DEMO_REFUSAL in his_page and button not in his_page
        assert button in alice_client.get(f"/servers/{server.pk}/").content.decode()

        harmless = bob_client.post(
            f"/servers/{server.pk}/tools/test/", {"tool": "get_weather", "arguments": '{"latitude": 1, "longitude": 2}'}
        )
        booking = {"tool": "cancel_booking", "arguments": '{"booking_reference": "ABC123"}'}
        refused = bob_client.post(f"/servers/{server.pk}/tools/test/", booking).content.decode()
        not_his = bob_client.post(f"/servers/{server.pk}/side-effects/acknowledge/")

        assert harmless.context["tested"]["is_error"] is False
        assert (
            "&#x27;cancel_booking&#x27; looks destructive; testing it calls the tools of “Demo travel server” for "
            "real (bookings, writes, deletions happen). Acknowledge that on the server&#x27;s page first"
        ) in refused
        assert (
            "; staff can." in refused
            and "tested" not in bob_client.post(f"/servers/{server.pk}/tools/test/", booking).context
        )
        assert not_his.status_code == 403 and DEMO_REFUSAL in not_his.content.decode()

        alice_client.post(f"/servers/{server.pk}/side-effects/acknowledge/")
        called = bob_client.post(f"/servers/{server.pk}/tools/test/", booking)

        assert called.context["tested"]["tool"] == "cancel_booking"
