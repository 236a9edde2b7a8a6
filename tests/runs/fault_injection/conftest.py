from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.evalhub.mcp_client.helpers import start_demo, stop


@pytest.fixture(scope="module")
def demo_http_port() -> Iterator[int]:
    """The demo server over Streamable HTTP, in a process of the test's own (it stands for a remote host)."""
    process, port = start_demo("--http")
    yield port
    stop(process)
