from __future__ import annotations

import pytest

from evalhub.model_client import ProviderConfig, RetryPolicy
from tests.evalhub.model_client.scripted_server import API_KEY, ScriptedServer


@pytest.fixture
def server(scripted: ScriptedServer) -> ScriptedServer:
    return scripted


@pytest.fixture
def provider(server: ScriptedServer) -> ProviderConfig:
    # One attempt per call: the judge's own retry is what these tests count.
    return ProviderConfig(
        name="Scripted",
        base_url=server.base_url,
        api_key=API_KEY,
        timeout=5,
        retry=RetryPolicy(max_attempts=1),
    )
