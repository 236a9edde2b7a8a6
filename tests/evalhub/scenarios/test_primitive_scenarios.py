"""Resource and prompt scenarios through the scenario form: level choice, target, arguments, errors."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from tests.base import make_scenario
from tests.evalhub.scenarios.test_scenarios import form_data


@pytest.mark.django_db
class PrimitiveFormTests:
    def test_it_saves_a_resource_template_scenario(self, alice_client: Client, server: McpServer) -> None:
        data = form_data(
            server,
            level="resource",
            primitive_target="travel://airports/{code}",
            primitive_arguments='{"code": "CDG"}',
        )

        response = alice_client.post("/scenarios/new/", data)

        assert response.status_code == 302, response.content.decode()[-2000:]
        scenario = Scenario.objects.get()
        assert scenario.level == "resource"
        assert scenario.primitive == {"template": "travel://airports/{code}", "arguments": {"code": "CDG"}}
        page = alice_client.get(f"/scenarios/{scenario.pk}/edit/").content.decode()
        assert "travel://airports/{code}" in page

    def test_it_saves_a_prompt_scenario(self, alice_client: Client, server: McpServer) -> None:
        data = form_data(
            server, level="prompt", primitive_target="plan_trip", primitive_arguments='{"destination": "Oslo"}'
        )

        alice_client.post("/scenarios/new/", data)

        assert Scenario.objects.get().primitive == {"name": "plan_trip", "arguments": {"destination": "Oslo"}}

    @pytest.mark.parametrize(
        ("fields", "message"),
        [
            ({"level": "resource", "primitive_target": ""}, "A resource scenario needs a target"),
            (
                {"level": "resource", "primitive_target": "x://a/{id}", "primitive_arguments": "{}"},
                "needs a value for id",
            ),
            ({"level": "resource", "primitive_target": "x://a", "primitive_arguments": "[1]"}, "must be a JSON object"),
            ({"level": "prompt", "primitive_target": "p", "primitive_arguments": '{"n": 3}'}, "is not (quote it)"),
            ({"level": "execution"}, "comes from a server&#x27;s shipped evals or a suite file"),
        ],
    )
    def test_bad_input_is_named_and_nothing_is_saved(
        self, alice_client: Client, server: McpServer, fields: dict[str, Any], message: str
    ) -> None:
        response = alice_client.post("/scenarios/new/", form_data(server, **fields))

        assert response.status_code == 200
        assert message in response.content.decode()
        assert not Scenario.objects.exists()

    def test_the_form_offers_the_levels(self, alice_client: Client) -> None:
        html = alice_client.get("/scenarios/new/").content.decode()

        assert 'value="resource"' in html and 'value="prompt"' in html


@pytest.mark.django_db
class PrimitiveScenarioPageTests:
    def test_it_shows_what_is_read_and_with_which_arguments(self, alice_client: Client, server: McpServer) -> None:
        scenario = make_scenario(
            server, level="resource", primitive={"template": "travel://airports/{code}", "arguments": {"code": "CDG"}}
        )

        html = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()

        assert "Reads <code>travel://airports/{code}</code> directly, with no model, with" in html
        assert "&quot;CDG&quot;" in html
        assert "none: the resource is read directly" in html

    def test_a_prompt_scenario_names_its_prompt(self, alice_client: Client, server: McpServer) -> None:
        scenario = make_scenario(server, level="prompt", primitive={"name": "plan_trip", "arguments": {}})

        html = alice_client.get(f"/scenarios/{scenario.pk}/").content.decode()

        assert "Gets the prompt <code>plan_trip</code> directly, with no model</p>" in html
