from __future__ import annotations

import pytest

from evalhub.servers.models import McpServer
from tests.base import make_demo_server


@pytest.fixture
def server(db: None) -> McpServer:
    """The demo server, with the tools its scenarios expect already recorded."""
    server = make_demo_server()
    server.record_tools([{"name": "get_weather"}, {"name": "search_flights"}])
    return server
