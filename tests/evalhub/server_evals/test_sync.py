"""Importing a server's shipped evals as scenarios and re-syncing them, against the independent low-level fixture
server (tests/evalhub/mcp_client/fixtures/evals_server.py) run as a real stdio process."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User

from evalhub.providers.models import offline_provider
from evalhub.scenarios.models import Scenario
from evalhub.scenarios.services import scenario_duplicate
from evalhub.server_evals.services import NotInspected, shipped_evals_sync
from evalhub.servers.models import McpServer
from evalhub.servers.services import server_inspect
from tests.base import PYTHON
from tests.evalhub.mcp_client.helpers import FIXTURES

FIRST_IDS = {"add-invocation", "add-execution", "add-judge", "add-invocation-judge", "sum-scenario"}


def fixture_server(*flags: str) -> McpServer:
    server = McpServer.objects.create(
        name="Adder", transport="stdio", command=PYTHON, args=[str(FIXTURES / "evals_server.py"), *flags]
    )
    server_inspect(server=server)
    return server


def reinspect(server: McpServer, *flags: str) -> None:
    server.args = [str(FIXTURES / "evals_server.py"), *flags]
    server.save()
    server_inspect(server=server)


def linked(server: McpServer) -> dict[str, Scenario]:
    return {s.shipped_eval_id: s for s in Scenario.objects.filter(server=server).exclude(shipped_eval_id="")}


@pytest.mark.django_db
class ImportTests:
    def test_import_all_makes_one_scenario_per_valid_eval_and_reports_the_invalid(self, alice: User) -> None:
        server = fixture_server("--invalid")

        report = shipped_evals_sync(server=server, user=alice)

        assert set(report.added) == FIRST_IDS and report.changed == report.removed == []
        assert [(bad["id"], bad["position"]) for bad in report.invalid] == [
            ("exact-scenario", 6),
            ("no-rubric", 7),
            ("add-execution", 8),
            (None, 9),
        ]
        assert report.summary() == "5 imported, 4 invalid, not imported"
        scenarios = linked(server)
        assert set(scenarios) == FIRST_IDS
        execution = scenarios["add-execution"]
        assert (execution.level, execution.tool_call) == ("execution", {"tool": "add", "arguments": {"a": 2, "b": 3}})
        assert sorted(execution.tags.values_list("name", flat=True)) == ["execution", "server-evals"]
        assert execution.expectations[0]["kind"] == "tool_result"
        assert execution.expectations[0]["equals"] == [{"type": "text", "text": "5"}]
        invocation = scenarios["add-invocation"]
        assert (invocation.level, invocation.max_turns, invocation.prompt) == ("invocation", 1, "What is 2 plus 3?")
        assert invocation.expectations[0] | {"description": ""} == {
            "kind": "tool_called",
            "tool": "add",
            "args": {"a": 2, "b": 3},
            "description": "",
        }
        scenario = scenarios["sum-scenario"]
        assert (scenario.level, scenario.max_turns, scenario.expectations) == ("scenario", 3, [])
        (judge,) = scenario.scorers.all()
        assert (judge.kind, judge.labels, judge.name) == ("judge", "PASS|1\nFAIL|0", "Adder · sum-scenario")
        assert "PASS if the final answer is 6." in judge.system_prompt
        assert not scenarios["add-execution"].scorers.exists()
        assert execution.created_by == alice

    def test_import_some_imports_only_those(self, alice: User) -> None:
        server = fixture_server()

        report = shipped_evals_sync(server=server, user=alice, import_ids=["add-execution"])

        assert report.added == ["add-execution"] and set(linked(server)) == {"add-execution"}

    def test_an_eval_the_server_does_not_ship_is_refused(self, alice: User) -> None:
        server = fixture_server()

        with pytest.raises(ValueError, match=re.escape("“Adder” does not ship 'nope'; inspect it again.")):
            shipped_evals_sync(server=server, user=alice, import_ids=["nope"])
        assert not linked(server)

    def test_a_server_never_inspected_says_so(self, alice: User) -> None:
        server = McpServer.objects.create(name="Never", transport="stdio", command=PYTHON, args=["-c", "pass"])

        with pytest.raises(NotInspected, match="Inspect “Never” first"):
            shipped_evals_sync(server=server, user=alice)

    def test_a_taken_name_gets_the_eval_id(self, alice: User) -> None:
        server = fixture_server()
        Scenario.objects.create(
            name="Adder: Adds 2 and 3 with the add tool",
            prompt="x",
            server=server,
            provider=offline_provider(),
            model="m",
        )

        shipped_evals_sync(server=server, user=alice, import_ids=["add-invocation"])

        assert linked(server)["add-invocation"].name == "Adder: Adds 2 and 3 with the add tool (add-invocation)"

    def test_a_duplicate_is_the_users_own_not_linked(self, alice: User) -> None:
        server = fixture_server()
        shipped_evals_sync(server=server, user=alice, import_ids=["add-execution"])

        copy = scenario_duplicate(scenario=linked(server)["add-execution"], user=alice)

        assert (copy.shipped_eval_id, copy.shipped_eval, copy.level) == ("", None, "execution")
        assert set(linked(server)) == {"add-execution"}


@pytest.mark.django_db
class ResyncTests:
    def test_changed_evals_are_updated_removed_ones_kept_and_marked(self, alice: User) -> None:
        server = fixture_server()
        shipped_evals_sync(server=server, user=alice)
        judge_scenario = linked(server)["add-judge"]

        reinspect(server, "--second")
        report = shipped_evals_sync(server=server, user=alice, import_ids=[])

        assert report.changed == ["add-invocation"] and report.removed == ["add-judge"] and report.added == []
        assert sorted(report.unchanged) == ["add-execution", "add-invocation-judge", "sum-scenario"]
        scenarios = linked(server)
        assert scenarios["add-invocation"].prompt == "What is 4 plus 5?"
        assert scenarios["add-invocation"].expectations[0]["args"] == {"a": 4, "b": 5}
        judge_scenario.refresh_from_db()
        assert judge_scenario.shipped_eval_removed_at is not None and judge_scenario.scorers.count() == 1
        assert "add-negative" not in scenarios and report.not_imported == ["add-negative"]  # new upstream
        assert report.summary() == (
            "1 updated, 1 removed upstream (kept), 3 unchanged, 1 not imported (tick them to import)"
        )

        again = shipped_evals_sync(server=server, user=alice, import_ids=[])
        assert again.removed == [] and again.changed == []

    def test_an_eval_back_upstream_is_no_longer_marked_removed(self, alice: User) -> None:
        server = fixture_server()
        shipped_evals_sync(server=server, user=alice, import_ids=["add-judge"])
        reinspect(server, "--second")
        shipped_evals_sync(server=server, user=alice, import_ids=[])

        reinspect(server)
        report = shipped_evals_sync(server=server, user=alice, import_ids=[])

        assert report.changed == ["add-judge"]
        assert linked(server)["add-judge"].shipped_eval_removed_at is None


@pytest.mark.django_db
class ResyncOwnershipTests:
    """Finding 10 of issue 23: bob's re-sync rewrote alice's linked scenarios and judge."""

    def test_another_users_resync_leaves_her_scenarios_and_judge_and_says_whose_they_are(
        self, alice: User, bob: User
    ) -> None:
        server = fixture_server()
        shipped_evals_sync(server=server, user=alice)
        scenarios = linked(server)
        mine = scenarios["add-invocation"]
        mine.prompt = "Her own edited prompt"
        mine.save()
        (judge,) = scenarios["sum-scenario"].scorers.all()

        reinspect(server, "--second", "--new-rubric")
        report = shipped_evals_sync(server=server, user=bob, import_ids=[])

        reason = "changed upstream, not applied: owned by alice"
        assert sorted((item["id"], item["reason"]) for item in report.not_applied) == [
            ("add-invocation", reason),
            ("add-judge", reason),
            ("sum-scenario", reason),
        ]
        assert report.changed == report.removed == []
        assert report.summary() == (f"2 unchanged, 1 not imported (tick them to import), 3 {reason}")
        mine.refresh_from_db()
        assert mine.prompt == "Her own edited prompt"
        assert linked(server)["add-judge"].shipped_eval_removed_at is None
        judge.refresh_from_db()
        assert "PASS if the final answer is 6." in judge.system_prompt
        assert list(judge.versions.values_list("version", "created_by__username")) == [(1, "alice")]

        # Hers to change: her own sync applies what bob's left out.
        report = shipped_evals_sync(server=server, user=alice, import_ids=[])

        assert sorted(report.changed) == ["add-invocation", "sum-scenario"] and report.removed == ["add-judge"]
        judge.refresh_from_db()
        assert "given as a number" in judge.system_prompt and judge.version == 2
