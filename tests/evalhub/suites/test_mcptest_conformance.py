"""mcptest conformance: small mcptest files and the EvalHub meaning each must have (one row per reference feature
EvalHub claims), one test per refusal and the report's counts.
Imported suites at work: test_mcptest_imported_runs.py."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from evalhub.suites.mcptest import convert
from evalhub.suites.mcptest.load import load_mcptest
from evalhub.suites.source import SourceError
from evalhub.suites.validation import problems_of
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
