"""Resource and prompt scenarios run through the real pipeline against the bundled demo server, no model."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.scenarios.models import Scenario
from runs import pipeline
from runs.models import Run
from runs.primitive_request import expand_template
from runs.primitives import GET_PROMPT, READ_RESOURCE, resource_result
from runs.services import run_start
from tests.base import make_demo_server, make_scenario


def execute(scenario: Scenario, user: User) -> Run:
    run = run_start(scenario=scenario, user=user)
    pipeline.execute_run(run.pk, worker="test-worker")
    return Run.objects.get(pk=run.pk)


def scenario(level: str, primitive: dict[str, object], **fields: object) -> Scenario:
    return make_scenario(make_demo_server(), level=level, primitive=primitive, **fields)


class ExpandTemplateTests:
    def test_it_percent_encodes_each_value(self) -> None:
        assert expand_template("x://a/{code}/{q}", {"code": "CDG", "q": "a b/c"}) == "x://a/CDG/a%20b%2Fc"

    def test_a_missing_value_is_named(self) -> None:
        with pytest.raises(ValueError, match="needs a value for code"):
            expand_template("x://a/{code}", {})


@pytest.mark.django_db(transaction=True)
class ResourceLevelTests:
    def test_it_reads_the_resource_without_a_model_and_records_it(self, alice: User) -> None:
        run = execute(scenario("resource", {"uri": "travel://airports"}), alice)

        assert (run.status, run.verdict, run.model_calls) == ("done", "pass", [])
        (step,) = run.transcript["steps"]
        assert step["direct"] is True
        (call,) = run.tool_calls
        assert call["toolName"] == READ_RESOURCE and call["args"] == {"uri": "travel://airports"}
        (content,) = call["result"]["structuredContent"]["contents"]
        assert content["mimeType"] == "application/json" and "CDG" in content["text"]
        assert content["size"] == len(content["text"].encode())
        assert "CDG" in call["result"]["content"][0]["text"]
        assert run.score == 1.0 and run.passed is True

    def test_a_template_is_expanded_and_expectations_check_the_contents(self, alice: User) -> None:
        expectations = [
            {
                "kind": "tool_result",
                "tool": READ_RESOURCE,
                "path": "structuredContent.contents[0].mimeType",
                "equals": "application/json",
            },
            {
                "kind": "tool_result",
                "tool": READ_RESOURCE,
                "path": "structuredContent.contents[0].text",
                "contains": "Tokyo",
            },
        ]
        run = execute(
            scenario(
                "resource",
                {"template": "travel://airports/{code}", "arguments": {"code": "NRT"}},
                expectations=expectations,
            ),
            alice,
        )

        assert run.tool_calls[0]["args"]["uri"] == "travel://airports/NRT"
        assert (run.verdict, run.score) == ("pass", 1.0), run.score_reason

    def test_an_expectation_that_fails_fails_the_run(self, alice: User) -> None:
        expectations = [
            {
                "kind": "tool_result",
                "tool": READ_RESOURCE,
                "path": "structuredContent.contents[0].mimeType",
                "equals": "text/plain",
            }
        ]
        run = execute(scenario("resource", {"uri": "travel://airports"}, expectations=expectations), alice)

        assert (run.status, run.verdict) == ("done", "fail")

    def test_a_failed_read_is_the_servers_failure(self, alice: User, alice_client: Client) -> None:
        run = execute(
            scenario("resource", {"template": "travel://airports/{code}", "arguments": {"code": "ZZZ"}}), alice
        )

        assert run.status == "error"
        assert run.error["step"] == "resource read"
        assert (run.verdict, run.failure_cause) == ("fail", "server"), run.error
        page = alice_client.get(f"/runs/{run.pk}/")
        assert page.status_code == 200
        assert run.error["message"][:40] in page.content.decode(), run.error


@pytest.mark.django_db(transaction=True)
class PromptLevelTests:
    def test_it_gets_the_prompt_with_arguments(self, alice: User) -> None:
        expectations = [
            {
                "kind": "tool_result",
                "tool": GET_PROMPT,
                "path": "structuredContent.messages[0].content.text",
                "contains": "from Paris to Tokyo",
            },
        ]
        run = execute(
            scenario(
                "prompt",
                {"name": "plan_trip", "arguments": {"destination": "Tokyo", "origin": "Paris"}},
                expectations=expectations,
            ),
            alice,
        )

        assert (run.status, run.verdict, run.model_calls) == ("done", "pass", []), run.score_reason
        (call,) = run.tool_calls
        assert call["toolName"] == GET_PROMPT
        assert call["result"]["structuredContent"]["messages"][0]["role"] == "user"

    def test_an_unknown_prompt_is_the_servers_failure(self, alice: User) -> None:
        run = execute(scenario("prompt", {"name": "no_such_prompt", "arguments": {}}), alice)

        assert (run.status, run.verdict, run.failure_cause) == ("error", "fail", "server"), run.error


@pytest.mark.django_db(transaction=True)
class PrimitiveRunPageTests:
    def test_the_run_page_shows_what_was_read_and_the_answer(self, alice: User, alice_client: Client) -> None:
        run = execute(
            scenario("resource", {"template": "travel://airports/{code}", "arguments": {"code": "NRT"}}), alice
        )

        html = alice_client.get(f"/runs/{run.pk}/").content.decode()

        assert "none: a resource-level run reads the resource directly" in html
        assert 'id="run-primitive"><code>travel://airports/{code}</code>' in html
        assert READ_RESOURCE in html and "Narita International" in html


class ResourceResultTests:
    def test_a_blob_is_sized_by_its_decoded_bytes_and_shown_as_a_note(self) -> None:
        answer = {"contents": [{"uri": "x://logo", "mimeType": "image/png", "blob": "AAECAw=="}]}

        result = resource_result(answer)

        (content,) = result["structuredContent"]["contents"]
        assert content["size"] == 4
        assert result["content"] == [{"type": "text", "text": "(blob image/png, 4 bytes)"}]

    def test_text_is_sized_in_utf8_bytes(self) -> None:
        result = resource_result({"contents": [{"uri": "x://a", "text": "été"}]})

        assert result["structuredContent"]["contents"][0]["size"] == 5
