"""The check-up's API, CLI and pages, on the demo server; the reference "everything" server when npx can fetch it."""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client, override_settings

from evalhub.checkups.models import Checkup
from evalhub.checkups.services import checkup_execute
from runs.events.models import RunEvent
from runs.models import Run
from tests.api.conftest import key_client
from tests.api.helpers import assert_error
from tests.base import PYTHON, make_demo_server

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.mark.django_db
class CheckupApiTests:
    def test_it_queues_answers_202_then_the_report(self, alice: User) -> None:
        client = key_client(alice, ["evaluate:read", "evaluate:write"])
        server = make_demo_server()
        response = client.post(
            f"/api/v1/servers/{server.pk}/checkup", {"shipped_evals": False}, content_type="application/json"
        )
        assert response.status_code == 202
        checkup_id = response.json()["id"]
        assert client.get(f"/api/v1/checkups/{checkup_id}").json()["status"] == "queued"
        assert RunEvent.objects.filter(type="checkup.queued").exists() is False  # published at commit only
        checkup_execute(checkup_id=checkup_id)
        body = client.get(f"/api/v1/checkups/{checkup_id}").json()
        assert (body["status"], body["verdict"], body["passed"]) == ("finished", "PASS", True)
        assert set(body["sections"]) == {"static", "compliance", "runtime"}
        assert all({"severity", "evidence", "recommendation", "subject", "field"} <= set(f) for f in body["findings"])
        types = list(RunEvent.objects.values_list("type", flat=True))
        assert "checkup.progress" in types and types[-1] == "checkup.finished"
        junit = client.get(f"/api/v1/checkups/{checkup_id}/report?format=junit")
        assert junit.status_code == 200 and b"<testsuite" in junit.content

    def test_it_compares_two_checkups(self, alice: User) -> None:
        client = key_client(alice, ["evaluate:read", "evaluate:write"])
        server = make_demo_server()
        ids = []
        for acknowledge in (False, True):
            payload = {"shipped_evals": False, "acknowledge_side_effects": acknowledge}
            response = client.post(f"/api/v1/servers/{server.pk}/checkup", payload, content_type="application/json")
            ids.append(response.json()["id"])
            checkup_execute(checkup_id=ids[-1])
        body = client.get(f"/api/v1/checkups/{ids[1]}/compare/{ids[0]}").json()
        assert {f["subject"] for f in body["fixed"]} >= {"book_flight", "cancel_booking"}

    @override_settings(EVALHUB_DAILY_RUN_QUOTA=0)
    def test_it_refuses_past_the_quota(self, alice: User) -> None:
        client = key_client(alice, ["evaluate:read", "evaluate:write"])
        response = client.post(f"/api/v1/servers/{make_demo_server().pk}/checkup", {}, content_type="application/json")
        assert_error(response, 429, "QUOTA_EXCEEDED")
        assert not Checkup.objects.exists()

    def test_a_body_that_is_not_an_object_is_refused(self, alice: User) -> None:
        client = key_client(alice, ["evaluate:read", "evaluate:write"])
        response = client.post(
            f"/api/v1/servers/{make_demo_server().pk}/checkup", "true", content_type="application/json"
        )
        error = assert_error(response, 400, "VALIDATION_ERROR")
        assert error["message"] == 'The body must be a JSON object such as {"shipped_evals": false}, or empty.'
        assert not Checkup.objects.exists()

    def test_an_unknown_checkup_is_404(self, alice: User) -> None:
        assert_error(key_client(alice, ["evaluate:read"]).get("/api/v1/checkups/999"), 404, "RESOURCE_NOT_FOUND")


@pytest.mark.django_db
class CheckupCliTests:
    def test_it_prints_the_report_writes_files_and_exits_0(
        self, tmp_path: Path, capsys: pytest.CaptureFixture[str]
    ) -> None:
        server = make_demo_server()
        out = tmp_path / "checkup.json"
        call_command("evalhub", "checkup", "--server", server.name, "--no-shipped-evals", "--json-report", str(out))
        printed = capsys.readouterr().out
        assert printed.startswith(f"# Check-up of {server.name}: PASS")
        assert "## Runtime sweep" in printed
        assert json.loads(out.read_text())["verdict"] == "PASS"

    def test_an_unknown_server_exits_2(self) -> None:
        with pytest.raises(SystemExit) as exit_:
            call_command("evalhub", "checkup", "--server", "nope")
        assert exit_.value.code == 2

    def test_a_failing_server_exits_1_and_is_registered_on_the_fly(self) -> None:
        command = f"{PYTHON} {Path(__file__).with_name('noncompliant_server.py')}"
        with pytest.raises(SystemExit) as exit_:
            call_command("evalhub", "checkup", "--command", command, "--no-shipped-evals")
        assert exit_.value.code == 1
        checkup = Checkup.objects.select_related("server").get()
        assert (checkup.server.name, checkup.server.target) == (command, command)
        assert checkup.error is None
        assert any(f["code"] == "pagination_loop" for f in checkup.findings)

    def test_a_name_taken_by_another_target_is_refused(self, capsys: pytest.CaptureFixture[str]) -> None:
        make_demo_server(name="npx -y some-server")
        with pytest.raises(SystemExit) as exit_:
            call_command("evalhub", "checkup", "--command", "npx -y some-server")
        assert exit_.value.code == 2
        assert "already exists with another target" in capsys.readouterr().err
        assert not Checkup.objects.exists()

    @pytest.mark.once
    @pytest.mark.skipif(shutil.which("npx") is None, reason="npx is not installed")
    def test_the_reference_everything_server(self, capsys: pytest.CaptureFixture[str]) -> None:
        # Exit 1 (it has error findings) or 2; the check-up row says which.
        with contextlib.suppress(SystemExit):
            command = "npx -y @modelcontextprotocol/server-everything"
            call_command("evalhub", "checkup", "--command", command, "--no-shipped-evals")
        checkup = Checkup.objects.get()
        if checkup.error is not None:
            pytest.skip(f"the everything server could not be installed or started: {checkup.error['message']}")
        called = {call["tool"] for call in checkup.observations["calls"]}
        assert len(called) >= 10 and checkup.observations["reads"] and checkup.observations["prompt_gets"]
        assert any(f["code"] == "bad_params_wrong_answer" for f in checkup.findings)


@pytest.mark.django_db
class CheckupPageTests:
    def test_the_button_starts_one_and_the_page_follows_it(self, alice_client: Client) -> None:
        server = make_demo_server()
        page = alice_client.get(f"/servers/{server.pk}/")
        assert b"Check up</button>" in page.content
        response = alice_client.post(f"/servers/{server.pk}/checkup/")
        checkup = Checkup.objects.get()
        assert response["Location"] == f"/checkups/{checkup.pk}/"
        fragment = alice_client.get(f"/checkups/{checkup.pk}/", **HTMX)
        assert b'hx-trigger="every 2s"' in fragment.content and b"<html" not in fragment.content
        checkup = checkup_execute(checkup_id=checkup.pk)
        # The demo server ships evals: their runs (one each, admitted whole by the quota) are what it waits for.
        assert checkup is not None and checkup.status == "waiting" and len(checkup.run_ids) >= 1
        waiting = alice_client.get(f"/checkups/{checkup.pk}/").content.decode()
        assert "Waiting for runs" in waiting and "every 2s" in waiting
        Run.objects.filter(pk__in=checkup.run_ids).update(status="cancelled")
        done = alice_client.get(f"/checkups/{checkup.pk}/").content.decode()
        assert "every 2s" not in done and "Runtime sweep" in done and "Shipped evals" in done
        checkup.refresh_from_db()
        assert checkup.passed is True  # inconclusive (cancelled) runs are warnings, not errors
        html = alice_client.get(f"/checkups/{checkup.pk}/report.html")
        assert html["Content-Security-Policy"].startswith("sandbox")

    def test_it_requires_login(self) -> None:
        server = make_demo_server()
        assert Client().post(f"/servers/{server.pk}/checkup/").status_code == 302
        assert not Checkup.objects.exists()
