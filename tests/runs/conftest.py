from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.providers.scripted_server import ScriptedServer


@pytest.fixture
def scripted() -> Iterator[ScriptedServer]:
    """A real OpenAI-compatible HTTP endpoint on 127.0.0.1 that answers from a script."""
    server = ScriptedServer()
    yield server
    server.close()
