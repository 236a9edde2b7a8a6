"""Export and apply against the real database: round trip, idempotence, dry runs, atomicity, prune, secrets."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.contrib.auth.models import User

from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from evalhub.suites.services import suite_apply, suite_export
from evalhub.suites.source import load
from evalhub.suites.validation import InvalidSuite
from scorers.models import Scorer
from tests.evalhub.suites.install import SECRET_VALUES, build_install, wipe

URL = "http://testserver/api/v1/schemas/suite.json"


@pytest.fixture
def allow_references(settings: object) -> None:
    settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["*"]  # type: ignore[attr-defined]


def _snapshot() -> list[tuple[str, str, int]]:
    """Everything a suite manages, including sealed secrets and scorer versions, to prove nothing changed."""
    rows = [(s.name, s.sealed_secrets, 0) for s in McpServer.objects.order_by("name")]
    rows += [(s.name, s.prompt, s.tags.count()) for s in Scenario.objects.order_by("name")]
    rows += [(s.name, s.code, s.version) for s in Scorer.objects.order_by("name")]
    return rows


@pytest.mark.django_db
class RoundTripTests:
    def test_export_wipe_apply_export_gives_the_same_file(self, alice: User, allow_references: None) -> None:
        build_install(alice)
        first = suite_export(schema_url=URL)
        wipe()
        plan = suite_apply(text=first, filename="evals.yaml", user=alice)
        assert plan.count("create") == 7 and plan.count("change") == 0
        assert suite_export(schema_url=URL) == first

    def test_a_warm_servers_settings_go_out_and_come_back(self, alice: User, allow_references: None) -> None:
        build_install(alice)
        McpServer.objects.filter(name="Demo travel server").update(warm_reuse=True, warm_recycle_after=5)
        text = suite_export(schema_url=URL)
        server = next(s for s in load(text).data["servers"] if s["name"] == "Demo travel server")
        assert (server["warm_reuse"], server["warm_recycle_after"]) == (True, 5)
        # Defaults are left out of an export, as every field's are.
        remote = next(s for s in load(text).data["servers"] if s["name"] == "Remote API")
        assert "warm_reuse" not in remote and "warm_recycle_after" not in remote
        wipe()
        suite_apply(text=text, filename="evals.yaml", user=alice)
        warm = McpServer.objects.get(name="Demo travel server")
        assert (warm.warm_reuse, warm.warm_recycle_after) == (True, 5)

    def test_the_export_starts_with_the_schema_line_and_lists_variables_to_set(self, alice: User) -> None:
        build_install(alice)
        text = suite_export(schema_url=URL)
        assert text.splitlines()[0] == f"# yaml-language-server: $schema={URL}"
        assert "DEMO_TRAVEL_SERVER_DEMO_TOKEN, GATEWAY_API_KEY, REMOTE_API_BEARER_TOKEN" in text
        server = next(s for s in load(text).data["servers"] if s["name"] == "Remote API")
        assert server["bearer_token"] == "${REMOTE_API_BEARER_TOKEN}"
        assert server["headers"] == {
            "X-Api-Key": "${REMOTE_API_X_API_KEY}",
            "X-Other": "${REMOTE_OTHER}",
            "X-Tenant": "acme",
        }

    def test_export_by_tag_takes_what_its_scenarios_use(self, alice: User) -> None:
        build_install(alice)
        Scenario.objects.filter(name="Remote echo").first().tags.clear()  # type: ignore[union-attr]
        data = load(suite_export(schema_url=URL, tag="weather")).data
        assert [s["name"] for s in data["scenarios"]] == ["Weather in Paris"]
        assert [s["name"] for s in data["servers"]] == ["Demo travel server"]
        assert [s["name"] for s in data["scorers"]] == ["Helpful judge", "Short answer"]
        assert [p["name"] for p in data["providers"]] == ["Gateway"]


@pytest.mark.django_db
class ApplyTests:
    def test_applying_an_export_to_its_own_install_changes_nothing(self, alice: User) -> None:
        build_install(alice)
        before = _snapshot()
        plan = suite_apply(text=suite_export(schema_url=URL), user=alice)
        assert plan.is_empty
        assert _snapshot() == before  # secrets stored by value are kept, not replaced by references

    def test_applying_twice_is_a_no_op(self, alice: User, allow_references: None) -> None:
        build_install(alice)
        text = suite_export(schema_url=URL).replace("Echo hello.", "Echo hello twice.")
        assert str(suite_apply(text=text, user=alice)).count("~ change") == 1
        after_first = _snapshot()
        assert suite_apply(text=text, user=alice).is_empty
        assert _snapshot() == after_first

    def test_the_plan_lists_changes_field_by_field(self, alice: User) -> None:
        build_install(alice)
        text = suite_export(schema_url=URL).replace("max_turns: 6", "max_turns: 8").replace("  - weather\n", "")
        plan = suite_apply(text=text, user=alice, dry_run=True)
        (step,) = plan.steps
        assert (step.action, step.name) == ("change", "Weather in Paris")
        assert [(c.key, c.before, c.after) for c in step.changes] == [
            ("max_turns", 6, 8),
            ("tags", ["smoke", "weather"], ["smoke"]),
        ]

    def test_a_changed_expectation_shows_the_changed_part(self, alice: User) -> None:
        build_install(alice)
        text = suite_export(schema_url=URL).replace("icontains: paris", "icontains: london")

        (step,) = suite_apply(text=text, user=alice, dry_run=True).steps

        changes = [str(change) for change in step.changes]
        assert len(changes) == 1 and changes[0].startswith("expectations[1]")
        assert '"paris"' in changes[0] and '"london"' in changes[0]

    def test_a_long_text_changed_near_its_end_shows_the_change(self, alice: User) -> None:
        scenario = build_install(alice)["weather"]
        scenario.prompt = "Plan a trip. " * 20 + "Go to Paris."
        scenario.save()
        text = suite_export(schema_url=URL).replace("Go to Paris.", "Go to Rome.")

        (step,) = suite_apply(text=text, user=alice, dry_run=True).steps

        assert [str(change) for change in step.changes] == [
            'prompt: "… Plan a trip. Go to Paris." → "… Plan a trip. Go to Rome."'
        ]

    def test_a_dry_run_changes_nothing(self, alice: User, allow_references: None) -> None:
        build_install(alice)
        text = suite_export(schema_url=URL).replace("Echo hello.", "Changed.")
        wipe()
        plan = suite_apply(text=text, user=alice, dry_run=True)
        assert plan.count("create") == 7
        assert _snapshot() == []

    def test_a_failing_apply_changes_nothing(self, alice: User, allow_references: None) -> None:
        build_install(alice)
        before = _snapshot()
        # The first server's change is written, then the Remote API's new name (valid for the schema, too long
        # for the model) fails: the first write must be rolled back with it.
        long_name = "R" * 130
        text = (
            suite_export(schema_url=URL)
            .replace("- name: Demo travel server\n", "- name: Demo travel server\n  description: edited\n")
            .replace("Remote API", long_name)
        )
        with pytest.raises(InvalidSuite) as raised:
            suite_apply(text=text, filename="evals.yaml", user=alice)
        (problem,) = raised.value.problems
        assert problem.pointer == "/servers/1/name" and "at most 120 characters" in problem.message
        assert McpServer.objects.get(name="Demo travel server").description == ""
        assert _snapshot() == before

    def test_a_code_change_makes_a_new_scorer_version(self, alice: User) -> None:
        build_install(alice)
        text = suite_export(schema_url=URL).replace("< 400", "< 300")
        suite_apply(text=text, user=alice)
        scorer = Scorer.objects.get(name="Short answer")
        assert scorer.version == 2
        assert [v.version for v in scorer.versions.all()] == [2, 1]

    def test_prune_deletes_only_with_the_flag_and_only_listed_sections(self, alice: User) -> None:
        build_install(alice)
        without_scenarios = suite_export(schema_url=URL).split("scenarios:\n")[0]
        assert suite_apply(text=without_scenarios, user=alice, prune=True).is_empty  # no section, nothing deleted
        emptied = without_scenarios + "scenarios: []\n"
        assert suite_apply(text=emptied, user=alice).is_empty  # not without --prune
        plan = suite_apply(text=emptied, user=alice, prune=True)
        assert [(s.action, s.name) for s in plan.steps] == [("delete", "Remote echo"), ("delete", "Weather in Paris")]
        assert not Scenario.objects.exists() and Scorer.objects.count() == 2

    def test_unknown_references_are_errors_with_lines(self, alice: User) -> None:
        build_install(alice)
        text = suite_export(schema_url=URL).replace("server: Remote API", "server: Remote APl")
        with pytest.raises(InvalidSuite) as raised:
            suite_apply(text=text, filename="evals.yaml", user=alice)
        (problem,) = raised.value.problems
        assert problem.pointer == "/scenarios/0/server"
        assert text.splitlines()[problem.line - 1].strip() == "server: Remote APl"


@pytest.mark.django_db
class SecretTests:
    def test_secrets_never_appear_in_exports_plans_errors_or_logs(
        self, alice: User, caplog: pytest.LogCaptureFixture, settings: Any
    ) -> None:
        caplog.set_level(logging.DEBUG)
        build_install(alice)
        text = suite_export(schema_url=URL)
        wipe()
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["*"]
        plan = suite_apply(text=text, user=alice, dry_run=True)
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = []
        with pytest.raises(InvalidSuite) as raised:  # references the allowlist does not allow
            suite_apply(text=text, user=alice)
        leaked = text + str(plan) + str(plan.to_dict()) + str(raised.value) + caplog.text
        assert "EVALHUB_SECRET_ENV_ALLOWLIST" in str(raised.value)
        assert not [value for value in SECRET_VALUES if value in leaked]

    def test_a_secret_value_in_the_file_is_refused_without_echoing_it(self, alice: User) -> None:
        server = "servers:\n- name: x\n  transport: stdio\n  command: python\n"
        with pytest.raises(InvalidSuite) as raised:
            suite_apply(text=server + "  bearer_token: tok-by-value-456\n", filename="evals.yaml", user=alice)
        message = str(raised.value)
        assert message == (
            "evals.yaml:5 /servers/0/bearer_token: a secret is written only as a ${ENV_VAR} reference, "
            "never as its value"
        )
        with pytest.raises(InvalidSuite) as raised:
            suite_apply(text=server + "  env:\n    API_TOKEN: plain-secret-999\n", filename="evals.yaml", user=alice)
        assert str(raised.value) == (
            "evals.yaml:6 /servers/0/env/API_TOKEN: API_TOKEN looks like a credential: write it as a ${VAR} reference"
        )

    def test_a_reference_keeps_the_secret_out_of_the_database(self, alice: User, allow_references: None) -> None:
        text = "servers:\n- name: x\n  url: https://x.example.com/mcp\n  bearer_token: ${X_TOKEN}\n"
        suite_apply(text=text, user=alice)
        assert McpServer.objects.get(name="x").secrets()["bearer_token"] == "${X_TOKEN}"
