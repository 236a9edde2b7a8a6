"""Issue 23, finding 7: a server's shipped evals are capped in number and size, stored as their own rows, said so
on the page and in the quality report, and paged; against the independent low-level fixture server
(tests/evalhub/mcp_client/fixtures/evals_server.py) run as a real stdio process."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.models import User
from django.test import Client

from evalhub.scenarios.models import Scenario
from evalhub.server_evals.services import shipped_cap, shipped_evals_sync
from evalhub.servers.models import McpServer, ShippedEval
from evalhub.servers.services import server_inspect
from tests.base import PYTHON
from tests.evalhub.mcp_client.helpers import FIXTURES

pytestmark = pytest.mark.django_db

CAPPED = (
    "The server ships 605 evals; the first 500 kept (at most 500 per server). "
    "1 larger than 65,536 bytes each left out (listed as invalid)."
)


def fixture_server(*flags: str) -> McpServer:
    server = McpServer.objects.create(
        name="Adder", transport="stdio", command=PYTHON, args=[str(FIXTURES / "evals_server.py"), *flags]
    )
    server_inspect(server=server)
    return server


@pytest.fixture
def flooded(alice: User) -> McpServer:
    """600 evals more than the five it normally ships, one of them with a 100 kB description."""
    return fixture_server("--many", "600", "--long-description", "100000", "--page-size", "100")


class CapTests:
    def test_at_most_the_cap_is_kept_as_rows_and_an_oversized_eval_is_invalid_with_its_size(
        self, flooded: McpServer
    ) -> None:
        rows = list(flooded.shipped_evals.all())

        assert len(rows) == 500
        assert [row.eval_id for row in rows[:5]] == [
            "add-invocation",
            "add-judge",
            "add-invocation-judge",
            "sum-scenario",
            "many-1",
        ]
        assert rows[-1].eval_id == "many-496"
        assert "evals" not in flooded.last_inspection
        (oversized,) = flooded.last_inspection["invalid_evals"]
        assert oversized["id"] == "add-execution" and oversized["position"] == 2
        assert (
            oversized["reason"].startswith("it is 100,")
            and "over the limit of 65,536 bytes per eval" in (oversized["reason"])
        )
        assert shipped_cap(flooded) == CAPPED

    def test_the_page_says_so_in_the_list_and_the_quality_report_and_pages_the_list(
        self, alice_client: Client, flooded: McpServer
    ) -> None:
        page = alice_client.get(f"/servers/{flooded.pk}/").content.decode()

        assert len(page) < 200_000  # 100,000 evals made a 70 MB page
        assert 'Evals shipped by this server <span class="muted">(500)</span>' in page
        assert page.count(CAPPED) == 2  # above the list, and as a quality finding
        assert "<code>evals/list</code></td><td>The server ships 605 evals" in page
        assert page.count('name="eval_id"') == 50 and "Evals 1\u201350 of 500" in page
        assert "many-46<" in page and "many-47<" not in page

        second = alice_client.get(f"/servers/{flooded.pk}/?evals_page=2").content.decode()
        assert "Evals 51\u2013100 of 500" in second and "many-47<" in second

    def test_the_api_keeps_its_shape_and_pages(self, alice_client: Client, flooded: McpServer) -> None:
        listed = alice_client.get(f"/api/v1/servers/{flooded.pk}/evals").json()

        assert (len(listed["evals"]), listed["total"], listed["capped"]) == (500, 500, CAPPED)
        assert listed["invalid"][0]["id"] == "add-execution"
        page = alice_client.get(f"/api/v1/servers/{flooded.pk}/evals?offset=10&limit=3").json()
        assert [item["id"] for item in page["evals"]] == ["many-7", "many-8", "many-9"]

    def test_a_linked_eval_past_the_cap_is_not_marked_removed(self, alice: User, settings: Any) -> None:
        server = fixture_server("--many", "3")
        shipped_evals_sync(server=server, user=alice, import_ids=["many-3"])
        settings.EVALHUB_SHIPPED_EVALS_MAX = 5
        server_inspect(server=server)

        report = shipped_evals_sync(server=server, user=alice, import_ids=[])

        assert report.removed == [] and report.not_applied == [
            {"id": "many-3", "reason": "not among the evals kept, so not checked"}
        ]
        assert Scenario.objects.get(shipped_eval_id="many-3").shipped_eval_removed_at is None


class DataMigrationTests:
    def test_evals_in_the_old_json_move_to_rows_capped_and_the_old_key_is_dropped(self, settings: Any) -> None:
        migration = importlib.import_module("evalhub.migrations.0009_shipped_eval_rows")
        evals = [
            {
                "id": f"e{n}",
                "name": "n",
                "gradingType": "llm-as-judge",
                "input": {"type": "execution", "toolName": "t", "arguments": {}},
                "expected": {"type": "llm-as-judge", "rubric": "r"},
            }
            for n in range(4)
        ]
        server = McpServer.objects.create(
            name="Old", url="https://example.com/mcp", last_inspection={"evals": evals, "invalid_evals": []}
        )
        settings.EVALHUB_SHIPPED_EVALS_MAX = 3

        migration.evals_to_rows(apps, None)

        server.refresh_from_db()
        assert [row.eval_id for row in ShippedEval.objects.filter(server=server)] == ["e0", "e1", "e2"]
        assert "evals" not in server.last_inspection
        assert shipped_cap(server) == "The server ships 4 evals; the first 3 kept (at most 3 per server)."
