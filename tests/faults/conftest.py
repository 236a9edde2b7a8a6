from __future__ import annotations

from collections.abc import Iterator

import pytest

# The corpus's checks live in harness.py; without this, their failures would not show the values compared.
pytest.register_assert_rewrite("tests.faults.harness")

from tests.faults.harness import hostile_http_process  # noqa: E402


@pytest.fixture(scope="session")
def healthy_port() -> Iterator[int]:
    """The port of a well-behaved hostile_server.py over HTTP, for the run after each fault."""
    with hostile_http_process("healthy") as port:
        yield port
