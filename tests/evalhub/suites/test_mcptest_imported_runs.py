"""Imported mcptest suites at work: variables resolved when a run starts, tool tests' outcomes on the real demo
server over stdio, an import exported and applied again unchanged, and the import command's report."""

from __future__ import annotations

import io
import json
import textwrap
from typing import Any

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from evalhub.scenarios.models import Scenario
from evalhub.suites.services import mcptest_import, suite_apply, suite_export
from runs import pipeline
from runs.models import Run
from runs.services import run_start
from runs.variables import MissingVariable, interpolate, resolve
from tests.base import PYTHON
from tests.evalhub.suites.test_mcptest_conformance import HEAD, OFFLINE


class RunVariablesTests:
    def test_resolve_reads_the_environment_then_the_default(self, settings: Any) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["MCPTEST_*"]
        variables = {"who": {"env": "MCPTEST_WHO", "default": "world"}, "x": {"env": "MCPTEST_X"}}
        assert resolve(variables, {"MCPTEST_X": "1"}) == {"who": "world", "x": "1"}
        with pytest.raises(MissingVariable, match=r"\$\{x\} needs the environment variable MCPTEST_X"):
            resolve(variables, {})

    def test_resolve_refuses_what_a_secret_reference_may_not_read(self, settings: Any) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["*"]
        with pytest.raises(MissingVariable, match="EvalHub's own settings"):
            resolve({"k": {"env": "SECRET_KEY"}}, {"SECRET_KEY": "x"})

    def test_interpolate_replaces_declared_names_and_unescapes(self) -> None:
        value = {"a": ["Hi ${who}", "$${who} ${other}"], "n": 3}
        assert interpolate(value, {"who": "bob"}) == {"a": ["Hi bob", "${who} ${other}"], "n": 3}


def import_suite(body: str, user: User) -> dict[str, Scenario]:
    mcptest_import(
        text=HEAD + textwrap.dedent(body), filename="t.yaml", user=user, dry_run=False, schema_url="", **OFFLINE
    )
    return {scenario.name: scenario for scenario in Scenario.objects.all()}


def execute(scenario: Scenario, user: User) -> Run:
    scenario.server.side_effects_acknowledged_by = user
    run = run_start(scenario=scenario, user=user)
    pipeline.execute_run(run.pk, worker="test-worker")
    return Run.objects.get(pk=run.pk)


TOOL_TESTS = """
variables:
  city: {from_env: MCPTEST_CITY}
tools:
  - name: all pass
    server: demo
    tool: get_weather
    args: {latitude: 48.85, longitude: 2.35}
    expect:
      - {target: result.isError, matcher: {exact: false}}
      - {target: result.structuredContent.location, matcher: {exact: "${city}"}}
      - {target: "result.content[0].text", matcher: {regex: "temperature"}}
  - name: one of three fails
    server: demo
    tool: get_weather
    args: {latitude: 48.85, longitude: 2.35}
    expect:
      - {target: result.isError, matcher: {exact: false}}
      - {target: result.structuredContent.location, matcher: {exact: Berlin}}
      - {target: "result.content[0].text", matcher: {regex: "temperature"}}
  - name: too slow
    server: demo
    tool: wait
    args: {seconds: 9}
    timeout_ms: 5000
"""


@pytest.mark.django_db(transaction=True)
class StdioOutcomeTests:
    @pytest.fixture(autouse=True)
    def _allow(self, settings: Any, monkeypatch: pytest.MonkeyPatch) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["MCPTEST_*"]
        monkeypatch.delenv("MCPTEST_CITY", raising=False)

    def test_every_assertion_gates_and_variables_are_read_when_the_run_starts(
        self, alice: User, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        scenarios = import_suite(TOOL_TESTS, alice)
        server = scenarios["all pass"].server
        server.side_effects_acknowledged_by, server.side_effects_acknowledged_at = alice, server.created_at
        server.save()

        missing = execute(scenarios["all pass"], alice)
        assert (missing.status, missing.verdict, missing.failure_cause) == ("error", "inconclusive", "harness")
        assert missing.error["kind"] == "missing_variable" and "MCPTEST_CITY" in missing.error["message"]

        monkeypatch.setenv("MCPTEST_CITY", "Paris")  # set after the import: the run reads it
        passed = execute(scenarios["all pass"], alice)
        assert (passed.verdict, passed.score) == ("pass", 1.0)

        failed = execute(scenarios["one of three fails"], alice)
        assert failed.verdict == "fail" and failed.passed is False  # 2 of 3 passed is not a pass

        slow = execute(scenarios["too slow"], alice)
        # The time limit struck while the tool was answering: the server's slowness (runs/verdict).
        assert (slow.stop_reason, slow.verdict, slow.failure_cause) == ("time_limit", "fail", "server")


@pytest.mark.django_db
class RoundTripTests:
    """No mcptest export exists: the property is that an imported suite, exported as an EvalHub suite and applied
    again, changes nothing, whatever texts and limits the mcptest file held."""

    @hypothesis_settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(
        prompt=st.text(
            st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"), exclude_characters="$"),
            min_size=1,
            max_size=30,
        ),
        max_turns=st.integers(1, 100),
        env_default=st.one_of(st.none(), st.text("abc$ {}", max_size=8)),
    )
    def test_export_then_apply_is_stable(
        self, settings: Any, prompt: str, max_turns: int, env_default: str | None
    ) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["MCPTEST_*"]
        Scenario.objects.all().delete()
        variable = {"from_env": "MCPTEST_V"} | ({"default": env_default} if env_default is not None else {})
        data = {
            "servers": {"demo": {"command": [PYTHON, "-m", "evalhub.demo_server"]}},
            "variables": {"v": variable},
            "agents": [
                {
                    "name": "a",
                    "model": "evalhub-offline",
                    "servers": ["demo"],
                    "prompt": prompt + " ${v}",
                    "max_turns": max_turns,
                    "expect": [{"target": "final_response", "matcher": {"contains": prompt.strip() or "x"}}],
                }
            ],
        }
        mcptest_import(
            text=json.dumps(data, ensure_ascii=False),
            filename="p.yaml",
            user=None,
            dry_run=False,
            schema_url="",
            **OFFLINE,
        )
        exported = suite_export(schema_url="")
        again = suite_apply(text=exported, filename="export.yaml")
        assert again.is_empty, str(again)


@pytest.mark.django_db
class CommandReportTests:
    def test_the_command_prints_the_counts(self, tmp_path: Any) -> None:
        path = tmp_path / "s.yaml"
        path.write_text(HEAD + "compliance:\n  - {name: i, server: demo, check: initialize}\n")
        err = io.StringIO()
        call_command("evalhub", "import-mcptest", "-f", str(path), "--dry-run", stdout=io.StringIO(), stderr=err)
        assert "2 item(s): 1 imported exactly, 0 imported with an approximation, 1 refused." in err.getvalue()
