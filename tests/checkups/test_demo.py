"""The demo server checked up end to end, over stdio and Streamable HTTP: every tool called (the destructive-
looking ones only once side effects are acknowledged), its resources and prompt read, and a passing verdict."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User

from evalhub.checkups.models import Checkup
from evalhub.checkups.services import checkup_execute, checkup_start
from evalhub.servers.models import McpServer
from tests.base import make_demo_server
from tests.evalhub.mcp_client.helpers import start_demo, stop


@pytest.fixture(scope="module")
def demo_http_url() -> Iterator[str]:
    process, port = start_demo("--http")
    yield f"http://127.0.0.1:{port}/mcp"
    stop(process)


def check_up(server: McpServer, user: User, **options: bool) -> Checkup:
    checkup = checkup_start(server=server, user=user, queue=False, shipped_evals=False, **options)
    done = checkup_execute(checkup_id=checkup.pk)
    assert done is not None
    return done


def codes(checkup: Checkup) -> set[tuple[str, str, str]]:
    return {(f["severity"], f["code"], f["subject"]) for f in checkup.findings}


@pytest.mark.django_db
class DemoCheckupTests:
    def test_over_stdio_it_passes_and_skips_destructive_tools(self, alice: User) -> None:
        checkup = check_up(make_demo_server(), alice)
        assert checkup.passed is True, checkup.findings
        assert checkup.status == "finished"
        assert {("info", "tool_skipped", "book_flight"), ("info", "tool_skipped", "cancel_booking")} <= codes(checkup)
        called = {c["tool"] for c in checkup.observations["calls"]}
        assert called == {"get_weather", "search_flights", "wait"}
        assert {r["uri"] for r in checkup.observations["reads"]} == {"travel://airports", "travel://airports/1"}
        assert [g["prompt"] for g in checkup.observations["prompt_gets"]] == ["plan_trip"]
        assert set(checkup.summary["sections"]) == {"static", "compliance", "runtime"}
        assert not [f for f in checkup.findings if f["section"] == "compliance"]

    def test_acknowledged_it_calls_every_tool(self, alice: User) -> None:
        server = make_demo_server(created_by=alice)
        checkup = check_up(server, alice, acknowledge_side_effects=True)
        server.refresh_from_db()
        assert server.side_effects_acknowledged_by == alice
        called = {c["tool"] for c in checkup.observations["calls"]}
        assert called == {"book_flight", "cancel_booking", "get_weather", "search_flights", "wait"}
        assert not any(f["code"] == "tool_skipped" for f in checkup.findings)

    def test_over_http_it_finds_what_stdio_finds(self, alice: User, demo_http_url: str) -> None:
        stdio = check_up(make_demo_server(), alice)
        # Staff's servers may reach this machine's addresses (evalhub.outbound).
        staff = User.objects.create_user("staffer", is_staff=True)
        server = McpServer.objects.create(name="Demo over HTTP", transport="http", url=demo_http_url, created_by=staff)
        http = check_up(server, alice)
        assert http.error is None, http.error
        assert http.observations["transport"] == "http"
        assert codes(http) == codes(stdio)
        assert http.passed is True
