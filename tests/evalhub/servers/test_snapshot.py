"""A tool snapshot's own page: the exact tools a run was recorded against, linked from the run."""

from __future__ import annotations

import pytest
from django.test import Client

from runs.models import Run
from tests.base import make_demo_server, make_scenario

WEATHER = {
    "name": "get_weather",
    "title": "Weather",
    "description": "Get the current weather at a latitude and longitude.",
    "inputSchema": {"type": "object", "properties": {"latitude": {"type": "number"}}, "required": ["latitude"]},
    "outputSchema": None,
    "annotations": {"readOnlyHint": True},
}


@pytest.mark.django_db
class ServerSnapshotTests:
    def test_it_shows_the_snapshots_tools_and_what_changed_before_it(self, bob_client: Client) -> None:
        server = make_demo_server()
        first = server.record_tools([WEATHER])
        second = server.record_tools([WEATHER, {**WEATHER, "name": "get_forecast", "title": "Forecast"}])

        response = bob_client.get(f"/servers/{server.pk}/snapshots/{second.tools_hash}/")

        content = response.content.decode()
        assert response.status_code == 200
        assert second.tools_hash in content
        assert '<code class="tool-name">get_forecast</code>' in content
        assert '<span class="badge ">read-only</span>' in content
        assert 'latitude</code><span class="required"' in content
        assert f'href="/servers/{server.pk}/snapshots/{first.tools_hash}/"' in content
        assert ": +1 added" in content
        older = bob_client.get(f"/servers/{server.pk}/snapshots/{first.tools_hash}/").content.decode()
        assert "get_forecast" not in older and "the first snapshot of this server" in older

    def test_an_unknown_hash_is_a_404_that_explains(self, bob_client: Client) -> None:
        server = make_demo_server()

        response = bob_client.get(f"/servers/{server.pk}/snapshots/{'0' * 64}/")

        assert response.status_code == 404
        assert "No such tool snapshot" in response.content.decode()

    def test_a_runs_tool_snapshot_links_here(self, bob_client: Client) -> None:
        server = make_demo_server()
        snapshot = server.record_tools([WEATHER])
        run = Run.objects.create(
            scenario=make_scenario(server),
            server=server,
            model="evalhub-offline",
            tool_snapshot=snapshot,
            tools_hash=snapshot.tools_hash,
        )

        content = bob_client.get(f"/runs/{run.pk}/").content.decode()

        assert f'<a href="/servers/{server.pk}/snapshots/{snapshot.tools_hash}/"><code' in content
        assert f'<a href="/servers/{server.pk}/">Demo travel server</a>' in content
