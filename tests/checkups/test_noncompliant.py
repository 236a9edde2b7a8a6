"""The deliberately non-compliant server (noncompliant_server.py) checked up: exactly the expected findings, in
bounded time, though one of its tools never answers."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from evalhub.checkups.services import checkup_execute, checkup_start
from evalhub.servers.models import McpServer
from tests.base import PYTHON

SERVER = Path(__file__).with_name("noncompliant_server.py")
EXPECTED = {
    ("static", "warning", "content_disagrees_with_structured", "echo"),
    ("static", "warning", "structured_without_output_schema", "echo"),
    ("compliance", "error", "bad_params_wrong_answer", "bad params"),
    ("compliance", "error", "list_failed", "resources/list"),
    ("compliance", "error", "list_failed", "resources/templates/list"),
    ("compliance", "error", "pagination_loop", "tools/list"),
    ("compliance", "error", "unknown_method_wrong_answer", "unknown method"),
    ("compliance", "warning", "list_changed_undeclared", "tools"),
    ("runtime", "error", "tool_timeout", "stall"),
    ("runtime", "warning", "invalid_arguments_accepted", "echo"),
    ("runtime", "warning", "invalid_call_wrong_code", "echo"),
}


@pytest.mark.django_db
class NoncompliantServerTests:
    def test_it_gives_exactly_the_expected_findings_in_bounded_time(self, alice: User) -> None:
        server = McpServer.objects.create(
            name="Non-compliant", transport="stdio", command=PYTHON, args=[str(SERVER)], request_timeout=2
        )
        checkup = checkup_start(server=server, user=alice, queue=False)
        started = time.monotonic()
        checkup = checkup_execute(checkup_id=checkup.pk)
        elapsed = time.monotonic() - started
        assert checkup is not None
        found = {(f["section"], f["severity"], f["code"], f["subject"]) for f in checkup.findings}
        assert found == EXPECTED
        # The hung tool costs its 2 s once (its invalid calls are not tried); the rest is start-up and answers.
        assert elapsed < 45, elapsed
        assert checkup.status == "finished" and checkup.passed is False
        assert checkup.summary["sections"]["compliance"]["score"] == 0.0
        assert checkup.summary["sections"]["runtime"]["score"] == 0.7
        timeout = next(f for f in checkup.findings if f["code"] == "tool_timeout")
        assert timeout["message"] == "A call with valid arguments got no answer within 2 s."
        stalled = [c for c in checkup.observations["calls"] if c["tool"] == "stall"]
        assert [c["kind"] for c in stalled] == ["valid"]
