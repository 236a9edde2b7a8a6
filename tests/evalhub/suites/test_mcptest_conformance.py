"""mcptest conformance: small mcptest files and the EvalHub meaning each must have (one row per reference feature
EvalHub claims), one test per refusal, the report's counts, and outcomes on the real demo server over stdio."""

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
from evalhub.suites.mcptest import convert
from evalhub.suites.mcptest.load import load_mcptest
from evalhub.suites.services import mcptest_import, suite_apply, suite_export
from evalhub.suites.source import SourceError
from evalhub.suites.validation import problems_of
from runs import pipeline
from runs.models import Run
from runs.services import run_start
from runs.variables import MissingVariable, interpolate, resolve
from tests.base import PYTHON

OFFLINE = {"provider": "EvalHub offline", "model": "evalhub-offline"}
HEAD = f"""
servers:
  demo:
    command: ["{PYTHON}", "-m", "evalhub.demo_server"]
"""


def conversion(body: str) -> Any:
    text = HEAD + (textwrap.dedent(body) if body.startswith("\n") else body)
    return convert(load_mcptest(text).data, **OFFLINE)


def scenario_of(body: str) -> dict[str, Any]:
    converted = conversion(body)
    assert converted.problems == []
    assert problems_of(converted.suite) == []
    return converted.suite["scenarios"][0]  # type: ignore[no-any-return]


AGENT = """
agents:
  - name: a
    model: evalhub-offline
    servers: [demo]
"""

# (reference feature, mcptest fragment, the scenario fields it must give)
ROWS: list[tuple[str, str, dict[str, Any]]] = [
    ("agents[].prompt", AGENT + "    prompt: Hi\n", {"prompt": "Hi"}),
    ("agents[].max_tokens default 1024", AGENT + "    prompt: Hi\n", {"max_tokens": 1024, "max_turns": 10}),
    ("agents[].max_tokens", AGENT + "    prompt: Hi\n    max_tokens: 300\n", {"max_tokens": 300}),
    ("agents[].max_turns", AGENT + "    prompt: Hi\n    max_turns: 4\n", {"max_turns": 4}),
    (
        "agents[] unbounded tool calls and time",
        AGENT + "    prompt: Hi\n",
        {"max_tool_calls": 500, "time_limit_seconds": 1200},
    ),
    ("agents[].time_budget", AGENT + "    prompt: Hi\n    time_budget: 2m\n", {"time_limit_seconds": 120}),
    ("agents[].token_budget", AGENT + "    prompt: Hi\n    token_budget: 900\n", {"token_budget": 900}),
    ("agents[].system_prompt", AGENT + "    prompt: Hi\n    system_prompt: Be brief\n", {"system_prompt": "Be brief"}),
    ("agents[].tags", AGENT + "    prompt: Hi\n    tags: [smoke]\n", {"tags": ["smoke"]}),
    (
        "variables value: ${name}",
        "variables:\n  who: {value: alice}\n" + AGENT + "    prompt: Hi ${who}\n",
        {"prompt": "Hi alice"},
    ),
    (
        "variables from_env: read when the run starts",
        "variables:\n  who: {from_env: MCPTEST_WHO, default: world}\n" + AGENT + "    prompt: Hi ${who}\n",
        {"prompt": "Hi ${who}", "variables": {"who": {"env": "MCPTEST_WHO", "default": "world"}}},
    ),
    ("${VAR:?}", AGENT + "    prompt: Hi ${WHO:?}\n", {"prompt": "Hi ${WHO}", "variables": {"WHO": {"env": "WHO"}}}),
    (
        "${VAR:-default}",
        AGENT + "    prompt: Hi ${WHO:-bob}\n",
        {"prompt": "Hi ${WHO}", "variables": {"WHO": {"env": "WHO", "default": "bob"}}},
    ),
    ("$VAR", AGENT + "    prompt: Hi $WHO\n", {"prompt": "Hi ${WHO}", "variables": {"WHO": {"env": "WHO"}}}),
    ("$$", AGENT + "    prompt: the price is $$5\n", {"prompt": "the price is $5"}),
    (
        "$$ before { with variables",
        AGENT + "    prompt: $${WHO} is $WHO\n",
        {"prompt": "$${WHO} is ${WHO}", "variables": {"WHO": {"env": "WHO"}}},
    ),
    (
        "interpolation in expectations (issue item 4)",
        "variables:\n  who: {value: alice}\n"
        + AGENT
        + "    prompt: Hi ${who}\n    expect:\n      - target: final_response\n        matcher: {exact: 'Hi ${who}'}\n",
        {"expectations": [{"kind": "final_answer", "matches": "Hi alice"}]},
    ),
    (
        "YAML 1.2: yes/no are text",
        "variables:\n  yes: {value: 'on'}\n" + AGENT + "    prompt: ${yes}\n",
        {"prompt": "on"},
    ),
]


class ConformanceTests:
    @pytest.mark.parametrize(("feature", "body", "expected"), ROWS, ids=[row[0] for row in ROWS])
    def test_the_feature_means_what_it_means_in_mcptest(
        self, feature: str, body: str, expected: dict[str, Any]
    ) -> None:
        scenario = scenario_of(body)
        assert {key: scenario.get(key) for key in expected} == expected

    def test_a_tool_test_keeps_long_form_expect_messages_and_its_timeout(self) -> None:
        scenario = scenario_of(
            """
            tools:
              - name: t
                server: demo
                tool: get_weather
                args: {latitude: 48.85, longitude: 2.35}
                timeout_ms: 8000
                expect:
                  assertions:
                    - target: result.isError
                      matcher: {exact: false}
                      message: no error
                  max_duration_ms: 5000
            """
        )
        assert scenario["time_limit_seconds"] == 8
        assert scenario["expectations"][1:] == [
            {"kind": "max_duration_ms", "max": 5000},
            {
                "kind": "tool_result",
                "tool": "get_weather",
                "call": "first",
                "path": "$.isError",
                "matches": False,
                "description": "no error",
            },
        ]

    def test_performance_default_timeout_applies_to_tool_tests(self) -> None:
        scenario = scenario_of(
            "performance: {default_timeout_ms: 20000}\n"
            "tools:\n  - {name: t, server: demo, tool: get_weather, args: {latitude: 1, longitude: 2}}\n"
        )
        assert scenario["time_limit_seconds"] == 20

    def test_imported_providers_serve_the_models_their_tests_name(self) -> None:
        converted = conversion(
            """
            providers:
              gw: {type: openai, base_url: "https://gw.example.com/v1"}
            agents:
              - name: a
                models: [{provider: gw, id: m1}, {provider: gw, id: m2}]
                servers: [demo]
                prompt: Hi
            """
        )
        assert converted.suite["providers"] == [
            {"name": "gw", "base_url": "https://gw.example.com/v1", "models": ["m1"]}
        ]


# (what is wrong, mcptest fragment, the problem: pointer and message)
REFUSALS: list[tuple[str, str, tuple[str, str]]] = [
    (
        "a wrong type",
        AGENT + "    prompt: Hi\n    max_turns: '10'\n",
        ("/agents/0/max_turns", 'expected an integer, got a string "10"'),
    ),
    ("an unknown top-level key", "varables: {}\n", ("/varables", 'unknown key "varables"; did you mean "variables"?')),
    (
        "an unknown key of a test",
        AGENT + "    prompt: Hi\n    max_turn: 3\n",
        ("/agents/0/max_turn", 'unknown key "max_turn"; did you mean "max_turns"?'),
    ),
    (
        "a matcher with two keys",
        AGENT + "    prompt: Hi\n    expect:\n      - target: final_response\n        matcher: {exact: a, regex: b}\n",
        (
            "/agents/0/expect/0/matcher",
            "a matcher has exactly one key (one of "
            + ", ".join(__import__("evalhub.suites.mcptest.schema", fromlist=["MATCHERS"]).MATCHERS)
            + ")",
        ),
    ),
    (
        "a bare number as a duration",
        AGENT + "    prompt: Hi\n    time_budget: 30\n",
        ("/agents/0/time_budget", "expected a string, got an integer 30"),
    ),
    (
        "a server with command and url",
        "  other: {command: [x], url: 'https://x'}\n",
        ("/servers/other", "a server has exactly one of command, url or cassette"),
    ),
    (
        "an agent with model and models",
        AGENT + "    models: [x]\n    prompt: Hi\n",
        ("/agents/0", "an agent has exactly one of model or models"),
    ),
    (
        "a variable with value and from_env",
        "variables:\n  v: {value: a, from_env: B}\n",
        ("/variables/v", "a variable has exactly one of value or from_env"),
    ),
    (
        "an unknown protocol version",
        "target_versions: ['2099-01-01']\n",
        (
            "/target_versions/0",
            "expected one of 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-03-26, 2026-07-28; "
            'did you mean "2025-06-18"?',
        ),
    ),
    (
        "an environment variable without default in a server URL",
        "  remote: {url: 'https://${HOST:?}/mcp'}\n",
        (
            "/servers/remote/url",
            "${HOST:?} reads the environment variable HOST, which EvalHub reads here only as a whole "
            "server env or header value (a secret reference, resolved where it is used): give it a default, or write "
            "the value here",
        ),
    ),
]


class RefusalTests:
    @pytest.mark.parametrize(("what", "body", "problem"), REFUSALS, ids=[row[0] for row in REFUSALS])
    def test_the_import_is_refused_naming_the_place(self, what: str, body: str, problem: tuple[str, str]) -> None:
        assert problem in conversion(body).problems

    def test_a_duplicate_key_is_refused_without_echoing_its_values(self) -> None:
        with pytest.raises(SourceError) as caught:
            load_mcptest("servers:\n  a: {command: [x]}\nvariables:\n  t: {value: s3cret}\n  t: {value: other}\n")
        assert (caught.value.message, caught.value.line) == ("duplicate key 't'", 5)
        assert "s3cret" not in caught.value.message

    def test_anchors_are_refused(self) -> None:
        with pytest.raises(SourceError, match="anchors and aliases"):
            load_mcptest("servers:\n  a: &s {command: [x]}\n  b: *s\n")


class ReportTests:
    def test_every_item_is_counted_once_as_exact_approximated_or_refused(self) -> None:
        converted = conversion(
            """
            faults:
              - {name: hang, target: {tool: get_weather}, kind: hang}
            compliance:
              - {name: init, server: demo, check: initialize}
            agents:
              - name: a
                model: {provider: EvalHub offline, id: evalhub-offline}
                servers: [demo]
                prompt: Hi
                max_tool_calls: 5
                time_budget: 30s
                inject: [hang]
                expect:
                  - target: final_response
                    matcher: {contains: Paris}
                  - target: conversation.tokens.total
                    matcher: {regex: "^[0-9]+$"}
            """
        )
        assert converted.items == {
            "/servers/demo": "exact",
            "/agents/0": "approximated",  # imported without its refused assertion
            "/agents/0/expect/0": "exact",
            "/agents/0/expect/1": "refused",
            "/compliance/0": "refused",
            "/agents/0/inject": "exact",  # the fault it names, injected (runs/fault_injection)
        }
        assert converted.counts.to_dict() == {"exact": 3, "approximated": 1, "refused": 2}
        assert converted.report().startswith(
            "6 item(s): 3 imported exactly, 1 imported with an approximation, 2 refused."
        )


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
