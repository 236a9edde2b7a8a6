"""The server page's per-tool figures across runs and the scenario page's confusion by day, on runs with known
answers."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from evalhub.scenarios.models import Scenario
from runs.models import Run
from tests.base import make_demo_server, make_scenario
from tests.runs.tool_usage.fixture import TOOLS


def finished_run(scenario: Scenario, calls: list[dict[str, Any]]) -> Run:
    assert scenario.server is not None
    return Run.objects.create(
        scenario=scenario,
        server=scenario.server,
        provider=scenario.provider,
        model=scenario.model,
        status=Run.Status.DONE,
        settings={"expected_tools": ["get_weather"], "prompt": scenario.prompt},
        all_tool_calls=calls,
        tool_snapshot=scenario.server.latest_snapshot(),
    )


@pytest.mark.django_db
class ToolUsagePagesTests:
    def test_the_server_and_scenario_pages_show_how_each_tool_was_used(self, alice: User, client: Client) -> None:
        server = make_demo_server()
        server.record_tools(TOOLS)
        scenario = make_scenario(server)
        finished_run(scenario, [{"toolName": "search_flights", "args": {"origin": "CDG", "destination": "LHR"}}])
        finished_run(scenario, [{"toolName": "get_weather", "args": {"latitude": 95, "longitude": 2}, "isError": True}])
        finished_run(scenario, [])
        client.force_login(alice)

        page = client.get(reverse("server_detail", args=[server.pk])).content.decode()

        row = page[page.index('<tr data-tool="get_weather">') : page.index('<tr data-tool="search_flights">')]
        assert '<td class="num">1</td>' in row  # one call
        assert "100 % <span" in row and "<div>latitude: out of range 1</div>" in row
        assert "<div>bad arguments 1</div>" in row and "<div>wrong tool 1</div>" in row
        assert "<div>never called 1</div>" in row and "<div>Weather in Paris</div>" in row
        assert 'coverage): <span class="mono">book_flight</span>, <span class="mono">cancel_booking</span>.' in page
        assert f"?variant_server={server.pk}" in page

        page = client.get(reverse("scenario_detail", args=[scenario.pk])).content.decode()

        section = page[page.index('id="confusion-by-day"') :]
        assert '<td class="num">1</td>' in section
        assert '<span class="mono">get_weather</span> → <span class="mono">search_flights</span> 1' in section
        assert '<span class="mono">get_weather</span> → <span class="mono">(not called)</span> 1' in section
