from __future__ import annotations

import pytest

from evalhub.model_client import ProviderConfig, RetryPolicy
from tests.evalhub.model_client.scripted_server import API_KEY, ScriptedServer

# Short waits so that retry tests take fractions of a second; bounds are still real.
FAST_RETRY = RetryPolicy(max_attempts=3, max_total_seconds=10, base_delay=0.01, max_delay=0.05)


@pytest.fixture
def server(scripted: ScriptedServer) -> ScriptedServer:
    return scripted


@pytest.fixture
def config(server: ScriptedServer) -> ProviderConfig:
    return ProviderConfig(
        name="Scripted",
        base_url=server.base_url,
        api_key=API_KEY,
        extra_headers={"X-Title": "EvalHub", "HTTP-Referer": "https://evalhub.example"},
        timeout=5,
        retry=FAST_RETRY,
    )
