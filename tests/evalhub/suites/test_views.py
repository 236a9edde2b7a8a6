"""Export and Import on the Scenarios page: the plan is shown before anything changes; Apply applies it."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from evalhub.scenarios.models import Scenario
from tests.evalhub.suites.install import SECRET_VALUES, build_install


class ScenarioListButtonsTests:
    def test_staff_see_export_and_import(self, alice_client: Client) -> None:
        page = alice_client.get("/scenarios/").content.decode()
        assert 'id="suite-export"' in page and 'id="suite-import"' in page

    def test_others_see_export_only_and_may_not_import(self, bob_client: Client) -> None:
        page = bob_client.get("/scenarios/").content.decode()
        assert 'id="suite-export"' in page and 'id="suite-import"' not in page
        assert bob_client.get("/scenarios/import/").status_code == 403


class ExportViewTests:
    def test_it_downloads_the_file(self, alice: User, bob_client: Client) -> None:
        build_install(alice)
        response = bob_client.get("/scenarios/export/?tag=smoke")
        assert response["Content-Disposition"] == 'attachment; filename="evals-smoke.yaml"'
        text = response.content.decode()
        assert "name: Remote echo" in text and not [v for v in SECRET_VALUES if v in text]

    def test_it_requires_login(self, db: None) -> None:
        assert Client().get("/scenarios/export/").status_code == 302


class ImportViewTests:
    def test_preview_shows_the_plan_and_apply_applies_it(self, alice: User, alice_client: Client) -> None:
        build_install(alice)
        text = alice_client.get("/scenarios/export/").content.decode().replace("Echo hello.", "Echo hi.")
        upload = SimpleUploadedFile("evals.yaml", text.encode(), content_type="application/yaml")
        page = alice_client.post("/scenarios/import/", {"format": "evalhub", "file": upload}).content.decode()
        assert "Plan: 0 to create, 1 to change, 0 to delete." in page
        assert "prompt: &quot;Echo hello.&quot; → &quot;Echo hi.&quot;" in page
        assert Scenario.objects.get(name="Remote echo").prompt == "Echo hello."
        response = alice_client.post(
            "/scenarios/import/", {"format": "evalhub", "text": text, "filename": "evals.yaml", "confirm": "1"}
        )
        assert response.status_code == 302 and response["Location"] == "/scenarios/"
        assert Scenario.objects.get(name="Remote echo").prompt == "Echo hi."

    def test_problems_are_listed_and_nothing_changes(self, alice_client: Client) -> None:
        text = "servers:\n- name: x\n  transport: stdio\n  comand: <b>python</b>\n"
        response = alice_client.post("/scenarios/import/", {"format": "evalhub", "text": text, "confirm": "1"})
        page = response.content.decode()
        assert response.status_code == 400
        assert (
            "evals.yaml:4 /servers/0/comand: unknown key &quot;comand&quot;; did you mean &quot;command&quot;?" in page
        )
        assert "<b>python</b>" not in page

    def test_an_mcptest_suite_shows_its_report(self, alice_client: Client, settings: object) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["*"]  # type: ignore[attr-defined]
        from tests.evalhub.suites.test_mcptest import SUITE

        page = alice_client.post(
            "/scenarios/import/", {"format": "mcptest", "text": SUITE.read_text()}
        ).content.decode()
        assert "Plan: 9 to create, 0 to change, 0 to delete." in page
        assert "Not carried over exactly (14)" in page
        assert (
            '21 exact</span> <span class="badge badge-warn">5 approximated</span> '
            '<span class="badge badge-fail">8 refused' in page
        )
        assert not Scenario.objects.exists()
