"""The rule itself (evalhub.permissions): who may change each kind of object, and the sentence a refusal says."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.core.exceptions import PermissionDenied

from evalhub.permissions import STDIO_STAFF_ONLY, can_change, change_refusal, require_change
from evalhub.servers.models import McpServer
from runs.models import Run
from scorers.models import Scorer
from tests.base import make_demo_server, make_scenario


def http_server(created_by: User | None, name: str = "Remote") -> McpServer:
    return McpServer.objects.create(
        name=name, transport="http", url="https://mcp.example.com/mcp", created_by=created_by
    )


@pytest.mark.django_db
class CreatorRuleTests:
    def test_the_creator_and_staff_may_anyone_else_may_not(self, alice: User, bob: User, charlie: User) -> None:
        server = http_server(bob)
        records = [server, make_scenario(server, created_by=bob), Scorer.objects.create(name="S", created_by=bob)]

        for record in records:
            assert (can_change(bob, record), can_change(alice, record), can_change(charlie, record)) == (
                True,
                True,
                False,
            ), record

    def test_what_staff_created_is_changed_by_staff_only(self, alice: User, bob: User) -> None:
        server = http_server(alice)

        assert change_refusal(bob, server) == (
            "Only the creator of the MCP server “Remote” (alice) or staff can change or delete it. "
            "Register a server of your own to use other settings."
        )
        assert change_refusal(alice, server) == ""

    def test_what_has_no_recorded_creator_is_staffs(self, alice: User, bob: User) -> None:
        scenario = make_scenario(http_server(None))

        assert change_refusal(bob, scenario) == (
            "The scenario “Weather in Paris” has no recorded creator, so only staff can change or delete it. "
            "Duplicate it to get a copy you can change."
        )
        assert can_change(alice, scenario)

    def test_an_anonymous_user_may_change_nothing_even_without_a_creator(self) -> None:
        assert not can_change(AnonymousUser(), http_server(None))

    def test_a_stdio_server_is_changed_by_staff_only_whoever_created_it(self, alice: User, bob: User) -> None:
        server = make_demo_server(created_by=bob)

        assert change_refusal(bob, server) == STDIO_STAFF_ONLY
        assert can_change(alice, server)

    def test_require_change_raises_the_refusal(self, bob: User, charlie: User) -> None:
        scorer = Scorer.objects.create(name="Strict", created_by=bob)

        require_change(bob, scorer)
        with pytest.raises(PermissionDenied) as refused:
            require_change(charlie, scorer)

        assert str(refused.value) == (
            "Only the creator of the scorer “Strict” (bob) or staff can change or delete it. "
            "Duplicate it to get a copy you can change."
        )


@pytest.mark.django_db
class RunRuleTests:
    def test_the_starter_the_scenarios_creator_and_staff_may(self, alice: User, bob: User, charlie: User) -> None:
        scenario = make_scenario(http_server(None), created_by=charlie)
        run = Run.objects.create(scenario=scenario, model="m", started_by=bob)
        outsider = User.objects.create_user("dave")

        assert [can_change(user, run) for user in (bob, charlie, alice, outsider)] == [True, True, True, False]
        assert change_refusal(outsider, run) == (
            f"Only bob (who started it), charlie (who created scenario “Weather in Paris”) or staff "
            f"can cancel or re-score run #{run.pk}."
        )

    def test_a_run_nobody_recorded_starting_is_its_scenarios_creators(self, bob: User, charlie: User) -> None:
        # Runs the CLI starts on the EvalHub machine have no user.
        run = Run.objects.create(scenario=make_scenario(http_server(None), created_by=bob), model="m")

        assert can_change(bob, run)
        assert change_refusal(charlie, run) == (
            f"Only bob (who created scenario “Weather in Paris”) or staff can cancel or re-score run #{run.pk}."
        )

    def test_without_starter_or_scenario_creator_only_staff_may(self, alice: User, bob: User) -> None:
        run = Run.objects.create(scenario=make_scenario(http_server(None)), model="m")

        assert change_refusal(bob, run) == f"Only staff can cancel or re-score run #{run.pk}."
        assert can_change(alice, run)
