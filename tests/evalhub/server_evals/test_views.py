"""The server page's shipped-evals and tool-test actions, through the test client, against the demo server."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.demo_server.evals import EVALS
from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from evalhub.servers.services import server_inspect
from tests.base import make_demo_server

pytestmark = pytest.mark.django_db


@pytest.fixture
def server(alice: User) -> McpServer:
    server = make_demo_server(created_by=alice)
    server_inspect(server=server)
    return server


def messages_of(response: object) -> list[str]:
    return [str(message) for message in response.context["messages"]]  # type: ignore[attr-defined]


class ImportViewTests:
    def test_the_server_page_lists_the_shipped_evals_with_import_boxes(
        self, alice_client: Client, server: McpServer
    ) -> None:
        page = alice_client.get(f"/servers/{server.pk}/").content.decode()

        assert f'Evals shipped by this server <span class="muted">({len(EVALS)})</span>' in page
        assert page.count('name="eval_id"') == len(EVALS)
        assert "I understand: allow execution evals on this server" in page

    def test_nothing_ticked_says_what_to_do(self, alice_client: Client, server: McpServer) -> None:
        response = alice_client.post(f"/servers/{server.pk}/evals/import/", follow=True)

        assert messages_of(response) == ["Tick the evals to import, or press Import all."]
        assert not Scenario.objects.exists()

    def test_a_model_that_no_longer_exists_is_refused(self, alice_client: Client, server: McpServer) -> None:
        response = alice_client.post(
            f"/servers/{server.pk}/evals/import/", {"all": "1", "model": "999:gone"}, follow=True
        )

        assert messages_of(response) == ["Choose a model from the list (its provider may have been deleted)."]

    def test_ticked_evals_are_imported_and_linked_on_the_page(self, alice_client: Client, server: McpServer) -> None:
        response = alice_client.post(
            f"/servers/{server.pk}/evals/import/", {"eval_id": ["weekend-in-paris"]}, follow=True
        )

        assert messages_of(response) == [
            f"Shipped evals of “{server.name}”: 1 imported, 4 not imported (tick them to import)."
        ]
        scenario = Scenario.objects.get(shipped_eval_id="weekend-in-paris")
        assert f'href="/scenarios/{scenario.pk}/"' in response.content.decode()
        assert response.content.decode().count('name="eval_id"') == len(EVALS) - 1

    def test_once_every_eval_is_imported_the_import_buttons_go(self, alice_client: Client, server: McpServer) -> None:
        page = alice_client.get(f"/servers/{server.pk}/").content.decode()
        assert "Import all</button>" in page

        response = alice_client.post(f"/servers/{server.pk}/evals/import/", {"all": "1"}, follow=True)

        page = response.content.decode()
        assert "Import all</button>" not in page and "Import selected</button>" not in page
        assert "Every eval is imported; Re-sync updates their scenarios." in page

    def test_resync_inspects_again_and_reports(self, alice_client: Client, server: McpServer) -> None:
        alice_client.post(f"/servers/{server.pk}/evals/import/", {"all": "1"})

        response = alice_client.post(f"/servers/{server.pk}/evals/resync/", follow=True)

        assert messages_of(response)[-1] == f"Shipped evals of “{server.name}”: {len(EVALS)} unchanged."

    def test_the_acknowledgment_never_redirects_off_site(self, alice_client: Client, server: McpServer) -> None:
        response = alice_client.post(
            f"/servers/{server.pk}/side-effects/acknowledge/", {"next": "https://evil.example/"}
        )

        assert response["Location"] == f"/servers/{server.pk}/#shipped-evals"
        server.refresh_from_db()
        assert server.side_effects_acknowledged_at is not None


class ToolTestViewTests:
    def test_arguments_that_are_not_an_object_are_explained(self, alice_client: Client, server: McpServer) -> None:
        response = alice_client.post(
            f"/servers/{server.pk}/tools/test/", {"tool": "get_weather", "arguments": "{oops"}, HTTP_HX_REQUEST="true"
        )

        page = response.content.decode()
        assert "Arguments: Expecting property name enclosed in double quotes" in page
        assert "<html" not in page

    def test_an_unknown_tool_names_the_ones_there_are(self, alice_client: Client, server: McpServer) -> None:
        response = alice_client.post(f"/servers/{server.pk}/tools/test/", {"tool": "fly", "arguments": "{}"})

        assert "has no tool &#x27;fly&#x27;; its tools: book_flight" in response.content.decode()

    def test_a_tampered_result_is_not_saved(self, alice_client: Client, server: McpServer) -> None:
        response = alice_client.post(
            f"/servers/{server.pk}/tools/test/save/", {"token": "forged", "name": "Mine"}, follow=True
        )

        assert messages_of(response) == ["That test result expired or was altered; call the tool again, then save."]
        assert not Scenario.objects.exists()

    def test_a_taken_name_is_refused(self, alice_client: Client, server: McpServer) -> None:
        tested = alice_client.post(
            f"/servers/{server.pk}/tools/test/", {"tool": "wait", "arguments": '{"seconds": 0}'}
        ).context
        token = tested["token"]
        alice_client.post(f"/servers/{server.pk}/tools/test/save/", {"token": token, "name": "Wait zero"})

        again = alice_client.post(
            f"/servers/{server.pk}/tools/test/save/", {"token": token, "name": "Wait zero"}, follow=True
        )

        assert messages_of(again)[-1] == "Choose another name: a scenario is already called that."
        assert Scenario.objects.filter(name="Wait zero", level="execution").count() == 1
