"""A run against a TLS server: its certificate refused by default is the server's failure; with its CA bundle the
same run passes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from runs import pipeline
from runs.models import Run
from runs.services import run_start
from tests.base import make_scenario
from tests.evalhub.mcp_client.helpers import start_demo, stop
from tests.evalhub.mcp_client.tls_helpers import self_signed, tls_front


@pytest.fixture
def tls_demo(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    cert, key = self_signed(tmp_path)
    process, port = start_demo("--http")
    try:
        with tls_front(port, cert, key) as tls_port:
            yield f"https://127.0.0.1:{tls_port}/mcp", cert
    finally:
        stop(process)


def execute(scenario: Scenario, user: User) -> Run:
    run = run_start(scenario=scenario, user=user)
    pipeline.execute_run(run.pk, worker="test-worker")
    return Run.objects.get(pk=run.pk)


@pytest.mark.django_db(transaction=True)
def test_a_refused_certificate_fails_the_run_as_the_servers_and_its_ca_bundle_passes_it(
    alice: User, tls_demo: tuple[str, Path]
) -> None:
    url, cert = tls_demo
    server = McpServer.objects.create(name="TLS demo", transport="http", url=url, created_by=alice)

    scenario = make_scenario(server)

    refused = execute(scenario, alice)
    McpServer.objects.filter(pk=server.pk).update(tls_ca_bundle_path=str(cert))
    accepted = execute(scenario, alice)

    assert (refused.verdict, refused.failure_cause) == ("fail", "server")
    assert "TLS handshake" in refused.failure_reason
    assert (accepted.verdict, accepted.passed) == ("pass", True)
