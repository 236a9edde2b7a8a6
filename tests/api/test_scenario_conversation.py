"""/api/v1/scenarios: a conversation (scripted turns or a simulated user) in, out, patched and validated."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from evalhub.providers.models import offline_provider
from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from tests.api.helpers import assert_error
from tests.api.test_scenarios import new_scenario, post
from tests.base import make_demo_server

SIMULATE = {"simulate": {"goal": "Book a flight to Paris", "max_user_turns": 3, "goal_tool": "book_flight"}}


def create(client: Client, conversation: Any) -> Any:
    server = McpServer.objects.filter(name="Demo travel server").first() or make_demo_server()
    return post(client, "/api/v1/scenarios", new_scenario(server.pk, conversation=conversation))


@pytest.mark.django_db
class ScenarioConversationApiTests:
    def test_scripted_turns_are_stored_and_returned(self, writer_api: Client) -> None:
        body = create(writer_api, {"turns": ["From London.", "Thanks!"]}).json()

        assert body["conversation"] == {"turns": ["From London.", "Thanks!"]}
        assert Scenario.objects.get(pk=body["id"]).conversation == {"turns": ["From London.", "Thanks!"]}

    def test_a_simulated_user_is_stored_and_a_patch_with_null_makes_it_one_prompt_again(
        self, writer_api: Client
    ) -> None:
        body = create(writer_api, SIMULATE).json()
        assert body["conversation"] == SIMULATE

        patched = writer_api.patch(
            f"/api/v1/scenarios/{body['id']}", {"conversation": None}, content_type="application/json"
        ).json()

        assert patched["conversation"] == {}

    def test_the_default_is_one_prompt(self, writer_api: Client) -> None:
        assert create(writer_api, {}).json()["conversation"] == {}

    def test_errors_name_the_field_and_what_to_do(self, writer_api: Client) -> None:
        error = assert_error(
            create(writer_api, {"simulate": {"persona": "terse", "max_user_turns": 0, "mood": "x"}}),
            400,
            "VALIDATION_ERROR",
        )

        assert error["details"]["fields"]["conversation"] == [
            "conversation.simulate: unknown key 'mood' (allowed: goal, persona, model, provider_id, max_user_turns, "
            "goal_tool)",
            "conversation.simulate.goal: required, a sentence saying what the simulated user wants done.",
            "conversation.simulate.max_user_turns: expected an integer from 1 to 50, got 0.",
        ]
        assert not Scenario.objects.exists()

    def test_empty_follow_ups_and_both_forms_at_once_are_refused(self, writer_api: Client) -> None:
        blank = assert_error(create(writer_api, {"turns": ["ok", "  "]}), 400, "VALIDATION_ERROR")
        both = assert_error(create(writer_api, {"turns": ["ok"], **SIMULATE}), 400, "VALIDATION_ERROR")

        assert blank["details"]["fields"]["conversation"] == [
            "conversation.turns[1]: expected a non-empty string (the user's message)"
        ]
        assert both["details"]["fields"]["conversation"] == [
            'conversation: use either "turns" or "simulate", not both.'
        ]

    def test_the_simulators_model_must_be_served_by_its_provider(self, writer_api: Client) -> None:
        provider = offline_provider()
        wrong = {"simulate": {"goal": "Book", "provider_id": provider.pk, "model": "gpt-4o"}}
        missing = {"simulate": {"goal": "Book", "provider_id": 99999}}

        wrong_error = assert_error(create(writer_api, wrong), 400, "VALIDATION_ERROR")
        missing_error = assert_error(create(writer_api, missing), 400, "VALIDATION_ERROR")

        assert wrong_error["details"]["fields"]["conversation"] == [
            "conversation.simulate.model: EvalHub offline does not serve 'gpt-4o' (it serves evalhub-offline)."
        ]
        assert missing_error["details"]["fields"]["conversation"] == [
            "conversation.simulate.provider_id: no provider 99999."
        ]
        ok = create(writer_api, {"simulate": {"goal": "Book", "provider_id": provider.pk, "model": "evalhub-offline"}})
        assert ok.status_code == 201
