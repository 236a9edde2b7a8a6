from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.servers.models import McpServer
from evalhub.suites.services import suite_export
from runs.models import Run
from scorers.contract import EXAMPLE_DESCRIPTION
from scorers.models import Scorer, ScorerVersion
from tests.base import make_demo_server, make_scenario


def code_form(**overrides: Any) -> dict[str, Any]:
    return {
        "name": "Weather called",
        "description": "",
        "kind": "code",
        "code": "async () => 1",
        "system_prompt": "",
        "labels": "",
        "judge_model_choice": "",
        **overrides,
    }


@pytest.fixture
def demo(db: None) -> McpServer:
    server = make_demo_server()
    server.record_tools(
        [
            {
                "name": "get_weather",
                "description": "Weather",
                "inputSchema": {
                    "type": "object",
                    "properties": {"latitude": {"type": "number"}, "longitude": {"type": "number"}},
                },
            }
        ]
    )
    return server


@pytest.fixture
def past_run(demo: McpServer) -> Run:
    call = {
        "toolName": "get_weather",
        "args": {"latitude": 48.85, "longitude": 2.35},
        "result": {},
        "timestamp": 1,
        "durationMs": 3,
        "isError": False,
        "nestedCalls": [],
    }
    return Run.objects.create(
        scenario=make_scenario(demo),
        model="evalhub-offline",
        status="done",
        all_tool_calls=[call],
        tool_calls=[call],
        tool_names=["get_weather"],
        transcript={"prompt": "Weather?", "steps": []},
        settings={"prompt": "Weather?"},
    )


@pytest.mark.django_db
class ScorerCreateTests:
    def test_it_creates_version_one(self, alice_client: Client) -> None:
        response = alice_client.post("/scorers/new/", code_form())

        scorer = Scorer.objects.get()
        assert response["Location"] == f"/scorers/{scorer.pk}/"
        assert scorer.version == 1
        assert ScorerVersion.objects.get(scorer=scorer).code == "async () => 1"

    def test_the_editor_starts_empty_with_the_wand_in_its_corner(self, alice_client: Client) -> None:
        html = alice_client.get("/scorers/new/").content.decode()

        editor = re.search(r'<textarea name="code"[^>]*>(.*?)</textarea>', html, re.S)
        assert editor is not None and editor[1].strip() == ""  # a placeholder shows the shape; nothing is saved
        assert "press the wand (top right)" in editor[0]
        assert re.search(
            r'<div class="code-box">\s*<textarea name="code".*?</textarea>\s*<button class="wand"', html, re.S
        )

    def test_empty_code_is_refused_with_what_to_do(self, alice_client: Client) -> None:
        html = alice_client.post("/scorers/new/", code_form(code="", description="Kept")).content.decode()

        assert (
            "The code is empty: write the scorer function, or press the wand at the top right of the code field to "
            "generate it from a description." in html
        )
        assert ">\nKept</textarea>" in html
        assert not Scorer.objects.exists()

    def test_a_syntax_error_is_reported_with_line_and_column(self, alice_client: Client) -> None:
        response = alice_client.post("/scorers/new/", code_form(code="async () => {\n  return 1 +;\n}"))

        html = response.content.decode()
        assert "line 2, column" in html
        assert "return 1 +;" in html  # what the user typed is kept
        assert not Scorer.objects.exists()

    def test_bad_judge_labels_are_explained_line_by_line(self, alice_client: Client) -> None:
        form = code_form(kind="judge", code="", system_prompt="Judge it.", labels="GOOD|1\nBAD|2\nGOOD|0")

        html = alice_client.post("/scorers/new/", form).content.decode()

        assert "line 2: the score of BAD must be a number from 0 to 1" in html
        assert "line 3: label GOOD is already used on line 1" in html
        assert not Scorer.objects.exists()


@pytest.mark.django_db
class ScorerTidyTests:
    def test_code_from_a_browser_exports_as_a_block_without_judge_fields(self, alice_client: Client) -> None:
        # What a browser sends: \r\n in every textarea, and the hidden judge fields still filled in.
        code = "async ({ output }) => {\r\n  return 1;\r\n}\r\n"
        form = code_form(code=code, system_prompt="Was it good?", labels="GOOD|1\r\nBAD|0")
        alice_client.post("/scorers/new/", form)

        scorer = Scorer.objects.get()
        exported = suite_export(schema_url="http://testserver/schema.json")

        assert (scorer.code, scorer.labels, scorer.system_prompt) == (
            "async ({ output }) => {\n  return 1;\n}",
            "",
            "",
        )
        assert "  code: |-\n    async ({ output }) => {\n      return 1;\n    }\n" in exported
        assert "labels" not in exported and "system_prompt" not in exported


class ScorerEditTests:
    def test_changing_the_code_makes_a_new_version_and_renaming_does_not(self, alice_client: Client) -> None:
        alice_client.post("/scorers/new/", code_form())
        scorer = Scorer.objects.get()

        alice_client.post(f"/scorers/{scorer.pk}/", code_form(name="Renamed"))
        scorer.refresh_from_db()
        assert (scorer.name, scorer.version) == ("Renamed", 1)

        alice_client.post(f"/scorers/{scorer.pk}/", code_form(name="Renamed", code="async () => 0.5"))
        scorer.refresh_from_db()
        assert scorer.version == 2
        assert list(scorer.versions.values_list("version", "code")) == [(2, "async () => 0.5"), (1, "async () => 1")]

    def test_duplicate_and_delete(self, alice_client: Client) -> None:
        alice_client.post("/scorers/new/", code_form())
        scorer = Scorer.objects.get()

        alice_client.post(f"/scorers/{scorer.pk}/duplicate/")
        assert Scorer.objects.filter(name="Copy of Weather called", version=1).exists()

        alice_client.post(f"/scorers/{scorer.pk}/delete/")
        assert not Scorer.objects.filter(pk=scorer.pk).exists()


@pytest.mark.django_db
class ScorerTestTests:
    def test_it_scores_a_past_run_and_shows_console_output(self, alice_client: Client, past_run: Run) -> None:
        code = 'async ({ output }) => { console.log("lat", output.allToolCalls[0].args.latitude); return 0.75; }'

        response = alice_client.post(
            "/scorers/test/", {**code_form(code=code), "run_id": past_run.pk}, HTTP_HX_REQUEST="true"
        )

        html = response.content.decode()
        assert html.lstrip().startswith('<div id="test-result">')
        assert "0.75" in html and "lat 48.85" in html
        assert not Scorer.objects.exists()  # testing never saves

    def test_on_a_saved_scorer_it_tests_the_edited_code_without_saving(
        self, alice_client: Client, past_run: Run
    ) -> None:
        alice_client.post("/scorers/new/", code_form())
        scorer = Scorer.objects.get()
        page = alice_client.get(f"/scorers/{scorer.pk}/").content.decode()
        test_url = re.search(r'hx-post="([^"]+)"[^>]*>Test scorer<', page)
        assert test_url is not None and test_url[1] == f"/scorers/{scorer.pk}/test/"

        form = {**code_form(code="async () => 0.25"), "run_id": past_run.pk}
        html = alice_client.post(test_url[1], form, HTTP_HX_REQUEST="true").content.decode()

        assert "already exists" not in html
        assert '<span class="badge badge-fail">0.25</span>' in html
        scorer.refresh_from_db()
        assert (scorer.code, scorer.version) == ("async () => 1", 1)

    def test_a_new_scorer_is_tested_before_it_has_a_name(self, alice_client: Client, past_run: Run) -> None:
        form = {**code_form(name="", code="async () => 0.5"), "run_id": past_run.pk}

        html = alice_client.post("/scorers/test/", form, HTTP_HX_REQUEST="true").content.decode()

        assert "This field is required" not in html
        assert '<span class="badge badge-fail">0.50</span>' in html

    def test_a_throwing_scorer_shows_its_error(self, alice_client: Client, past_run: Run) -> None:
        form = {**code_form(code="async () => { throw new Error('boom'); }"), "run_id": past_run.pk}

        html = alice_client.post("/scorers/test/", form, HTTP_HX_REQUEST="true").content.decode()

        assert "errored → 0" in html and "boom" in html


@pytest.mark.django_db
class ScorerGenerateTests:
    def test_the_offline_generator_writes_a_template_for_the_reference_description(
        self, alice_client: Client, demo: McpServer
    ) -> None:
        response = alice_client.post(
            "/scorers/generate/", {"criteria": EXAMPLE_DESCRIPTION, "server_id": demo.pk}, HTTP_HX_REQUEST="true"
        )

        html = response.content.decode()
        assert html.lstrip().startswith('<div id="generate-result"')
        assert "template" in html and "get_weather" in html and "latitude" in html
        # The page moves it into the editor (with Undo), so the hint speaks of the editor, not of "Save".
        assert '<textarea id="generated-code" hidden>' in html
        assert "The generated code is now in the editor." in html and "press Save" not in html
        assert not Scorer.objects.exists()

    def test_an_empty_description_is_explained(self, alice_client: Client) -> None:
        html = alice_client.post("/scorers/generate/", {"criteria": " "}, HTTP_HX_REQUEST="true").content.decode()
        assert "Describe what a good run looks like" in html


@pytest.mark.django_db
class ScenarioScorerAttachTests:
    def test_scorers_are_attached_from_the_scenario_form(
        self, alice_client: Client, demo: McpServer, alice: User
    ) -> None:
        alice_client.post("/scorers/new/", code_form())
        scorer = Scorer.objects.get()
        scenario = make_scenario(demo)
        form = alice_client.get(f"/scenarios/{scenario.pk}/edit/").context["form"]
        data = {k: v for k, v in form.initial.items() if v is not None}
        data.update(
            server=demo.pk,
            expected="",
            scorers=[scorer.pk],
            name=scenario.name,
            prompt=scenario.prompt,
            max_turns=10,
            max_tool_calls=25,
            time_limit_seconds=300,
            pass_threshold=0.7,
            token_budget="",
            cost_budget_usd="",
        )

        alice_client.post(f"/scenarios/{scenario.pk}/edit/", data)

        assert list(scenario.scorers.all()) == [scorer]


@pytest.mark.django_db
class ScorerTestBadInputTests:
    def test_a_run_id_that_is_not_a_number_is_explained(self, alice_client: Client) -> None:
        response = alice_client.post("/scorers/test/", {**code_form(), "run_id": "abc"}, HTTP_HX_REQUEST="true")

        assert response.status_code == 200
        assert "Choose a finished run to test on." in response.content.decode()
