"""mcptest matchers, transform and message as EvalHub expectations: each matcher's translation (a table), each
refusal with its reason, and an imported tool test run on the demo server over stdio, every assertion giving the
pass or fail mcptest gives."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from evalhub.suites.mcptest import convert
from evalhub.suites.mcptest.matchers import Refused, jq_program, translate
from evalhub.suites.services import mcptest_import
from runs import pipeline
from runs.models import ExpectationSnapshot, Run
from runs.services import run_start
from tests.base import PROJECT_DIR, PYTHON

OFFLINE = {"provider": "EvalHub offline", "model": "evalhub-offline"}

TRANSLATIONS: list[tuple[dict[str, Any], Any]] = [
    ({"exact": "ok"}, "ok"),
    ({"exact": {"a": 1}}, {"$equals": {"a": 1}}),
    ({"exact": [1, 2]}, {"$equals": [1, 2]}),
    ({"contains": {"isError": False}}, {"$contains": {"isError": False}}),
    ({"contains": ["urgent", "billing"]}, {"$contains": ["urgent", "billing"]}),
    ({"contains-all": ["a", "b"]}, {"$containsAll": ["a", "b"]}),
    ({"contains-any": []}, {"$containsAny": []}),
    ({"icontains": "SUCCESS"}, {"$icontains": "SUCCESS"}),
    ({"starts-with": "data:"}, {"$startsWith": "data:"}),
    ({"regex": "^ping"}, {"$regex": "^ping"}),
    ({"schema": {"type": "object"}}, {"$schema": {"type": "object"}}),
    ({"is-json": None}, {"$isJson": True}),
    ({"is-json": {"schema": {"required": ["id"]}}}, {"$isJson": {"schema": {"required": ["id"]}}}),
    ({"is-xml": None}, {"$isXml": True}),
    ({"is-xml": {"root": "note"}}, {"$isXml": {"root": "note"}}),
    ({"levenshtein": {"value": "fox", "max": 1}}, {"$levenshtein": {"value": "fox", "max": 1}}),
    ({"snapshot": "lists-tools"}, {"$snapshot": "lists-tools"}),
    ({"snapshot": {"name": "lists-tools"}}, {"$snapshot": "lists-tools"}),
    (
        {"is-valid-tools-call": None},
        {
            "$schema": {
                "type": "object",
                "required": ["name", "arguments"],
                "properties": {
                    "name": {"type": "string"},
                    "arguments": {"allOf": [{"type": "object"}, {"type": "object"}]},
                },
            }
        },
    ),
    ({"not": {"contains": "error"}}, {"$not": {"$contains": "error"}}),
    ({"oneOf": [{"exact": "ok"}, {"exact": "ready"}]}, {"$exactlyOne": ["ok", "ready"]}),
    (
        {
            "allOf": [
                {"anyOf": [{"contains": "ok"}, {"regex": "^a-\\d+$"}]},
                {"not": {"contains": {"content": [{"text": ""}]}}},
            ]
        },
        {
            "$allOf": [
                {"$anyOf": [{"$contains": "ok"}, {"$regex": "^a-\\d+$"}]},
                {"$not": {"$contains": {"content": [{"text": ""}]}}},
            ]
        },
    ),
]


@pytest.mark.parametrize(("matcher", "expected"), TRANSLATIONS, ids=[next(iter(m)) for m, _ in TRANSLATIONS])
def test_each_matcher_translates_to_its_equivalent(matcher: dict[str, Any], expected: Any) -> None:
    assert translate(matcher).expected == expected


REFUSALS: list[tuple[dict[str, Any], str]] = [
    ({"llm-jury": {"rubric": "x"}}, "llm-jury has no EvalHub equivalent yet"),
    ({"similar": {"value": "x"}}, "similar needs an embeddings model"),
    ({"cel": "value.size() > 0"}, "EvalHub has no CEL evaluator"),
    ({"is-sql": None}, "EvalHub has no SQL parser"),
    ({"factuality": {"reference": "x"}}, "model-graded matchers other than llm-judge"),
    ({"answer-relevance": {"query": "x"}}, "model-graded matchers other than llm-judge"),
    ({"context-faithfulness": {"context": "x"}}, "model-graded matchers other than llm-judge"),
    ({"equals": 1}, "unknown matcher 'equals'"),
    ({"not": {"snapshot": "x"}}, "snapshot cannot be negated or composed"),
    ({"anyOf": [{"llm-judge": {"rubric": "x"}}]}, "llm-judge cannot be negated or composed"),
    ({"allOf": []}, "allOf needs a non-empty list of matchers"),
    ({"regex": "("}, "matcher: $regex is not a valid regular expression"),
    ({"levenshtein": {"value": "x"}}, 'matcher: $levenshtein needs {"value": a string, "max": an integer ≥ 0}'),
    ({"is-json": "yes"}, "is-json takes ~ or {schema: …}"),
    ({"exact": 1, "regex": "x"}, "a matcher has exactly one key"),
]


@pytest.mark.parametrize(("matcher", "reason"), REFUSALS, ids=[str(m) for m, _ in REFUSALS])
def test_a_matcher_without_an_equivalent_is_refused_with_the_reason(matcher: dict[str, Any], reason: str) -> None:
    with pytest.raises(Refused) as refused:
        translate(matcher)
    assert reason in str(refused.value)


class TransformTests:
    def test_jq_programs_map(self) -> None:
        assert jq_program("jq ascii_downcase") == "ascii_downcase"
        assert jq_program("jq '.items | length'") == ".items | length"

    @pytest.mark.parametrize(
        ("command", "reason"),
        [
            ("./transforms/strip-ids.sh", "never as commands"),
            ("jq -r .a", "never as commands"),
            ("jq '.['", "transform is not a valid jq program"),
            ("jq 'unclosed", "cannot be read as a command line"),
        ],
    )
    def test_other_commands_are_refused(self, command: str, reason: str) -> None:
        with pytest.raises(Refused) as refused:
            jq_program(command)
        assert reason in str(refused.value)

    def test_an_unsupported_assertion_is_reported_never_dropped(self) -> None:
        agent = {
            "name": "a",
            "model": "evalhub-offline",
            "servers": ["weather"],
            "prompt": "Hi",
            "expect": [
                {"target": "final_response", "transform": "python strip.py", "matcher": {"exact": "x"}},
                {"target": "final_response", "matcher": {"cel": "true"}},
                {"target": "final_response", "transform": "jq ascii_downcase", "matcher": {"exact": "hi"}},
            ],
        }
        conversion = convert({"servers": {"weather": {"command": ["python"]}}, "agents": [agent]}, **OFFLINE)
        notes = [str(note) for note in conversion.notes if "/expect/" in note.pointer]
        assert notes == [
            "/agents/0/expect/0: unsupported: target 'final_response' with matcher 'exact': EvalHub runs transforms "
            "as jq programs in process, never as commands: only `jq <program>` (one program, no options) maps",
            "/agents/0/expect/1: unsupported: target 'final_response' with matcher 'cel': EvalHub has no CEL "
            "evaluator; express the predicate with $allOf/$anyOf/$not of matchers",
        ]
        assert conversion.suite["scenarios"][0]["expectations"] == [
            {"kind": "final_answer", "matches": "hi", "transform": "ascii_downcase"}
        ]


# (assertion, does it pass on get_weather at Paris?) — the demo server's answer there is
# {"location": "Paris", "conditions": "partly cloudy", "temperature_c": 14.1, …}, as structured content and JSON text.
ASSERTIONS: list[tuple[dict[str, Any], bool]] = [
    ({"target": "result.structuredContent.location", "matcher": {"exact": "Paris"}}, True),
    ({"target": "result.structuredContent", "matcher": {"contains": {"location": "Paris"}}}, True),
    ({"target": "result.structuredContent", "matcher": {"contains": {"location": "Lyon"}}}, False),
    ({"target": "result.content[0].text", "matcher": {"contains-all": ["Paris", "temperature_c"]}}, True),
    ({"target": "result.content[0].text", "matcher": {"contains-any": ["Lyon", "Nice"]}}, False),
    ({"target": "result.content[0].text", "matcher": {"starts-with": "{"}}, True),
    ({"target": "result.content[0].text", "matcher": {"icontains": "PARTLY"}}, True),
    ({"target": "result.structuredContent.conditions", "matcher": {"regex": "cloudy$"}}, True),
    (
        {
            "target": "result.content[0].text",
            "matcher": {"is-json": {"schema": {"type": "object", "required": ["location"]}}},
        },
        True,
    ),
    ({"target": "result.structuredContent", "matcher": {"schema": {"required": ["pressure_hpa"]}}}, False),
    (
        {
            "target": "result.structuredContent.conditions",
            "matcher": {"levenshtein": {"value": "partly cloud", "max": 1}},
        },
        True,
    ),
    ({"target": "result.content[0].text", "matcher": {"is-xml": None}}, False),
    ({"target": "result.structuredContent.location", "matcher": {"not": {"exact": "Lyon"}}}, True),
    (
        {
            "target": "result.structuredContent",
            "matcher": {
                "allOf": [
                    {"contains": {"location": "Paris"}},
                    {"anyOf": [{"contains": {"conditions": "sunny"}}, {"contains": {"conditions": "partly cloudy"}}]},
                    {"not": {"contains": {"conditions": "rain"}}},
                ]
            },
        },
        True,
    ),
    (
        {
            "target": "result.structuredContent.location",
            "matcher": {"oneOf": [{"exact": "Paris"}, {"starts-with": "P"}]},
        },
        False,
    ),
    (
        {
            "target": "result.structuredContent",
            "transform": "jq '.conditions | ascii_upcase'",
            "matcher": {"exact": "PARTLY CLOUDY"},
            "message": "conditions, shouted",
        },
        True,
    ),
    ({"target": "result.isError", "matcher": {"exact": False}}, True),
    ({"target": "result.structuredContent", "matcher": {"snapshot": "paris-weather"}}, True),
]


def suite(assertions: list[dict[str, Any]]) -> str:
    import yaml

    return yaml.safe_dump(
        {
            "servers": {"weather": {"command": ["python", "-m", "evalhub.demo_server"]}},
            "tools": [
                {
                    "name": "paris weather",
                    "server": "weather",
                    "tool": "get_weather",
                    "args": {"latitude": 48.85, "longitude": 2.35},
                    "expect": assertions,
                }
            ],
        },
        allow_unicode=True,
    )


def imported_run(alice: User, assertions: list[dict[str, Any]]) -> Run:
    _, conversion = mcptest_import(
        text=suite(assertions), filename="matchers.yaml", user=alice, dry_run=False, schema_url="", **OFFLINE
    )
    # Every assertion carried over exactly (the one note left: no timeout_ms, so EvalHub's largest time limit).
    assert [str(note) for note in conversion.notes] == [
        "/tools/0: approximated: no timeout_ms: unbounded in mcptest; EvalHub bounds every run, here at its largest "
        "(1200 s)"
    ]
    # The test's own interpreter and checkout, as make_demo_server; its tools only read, so calling them is fine.
    McpServer.objects.update(command=PYTHON, cwd=str(PROJECT_DIR), side_effects_acknowledged_at=timezone.now())
    run = run_start(scenario=Scenario.objects.get(name="paris weather"), user=alice)
    pipeline.execute_run(run.pk, worker="test")
    return Run.objects.get(pk=run.pk)


@pytest.mark.django_db(transaction=True)
class ImportedMatchersRunTests:
    def test_each_assertion_passes_or_fails_as_in_mcptest(self, alice: User) -> None:
        run = imported_run(alice, [assertion for assertion, _ in ASSERTIONS])

        details = run.score_results.get(is_current=True, scorer_kind="expectations").details
        assert details is not None
        # The first outcome is the tool test's own call; then one per assertion, in order.
        outcomes = details["outcomes"][1:]
        assert [outcome["passed"] for outcome in outcomes] == [passes for _, passes in ASSERTIONS]
        assert outcomes[15]["label"] == "conditions, shouted"
        # One failed assertion fails the run: expectations gate.
        assert (run.passed, run.verdict) == (False, "fail")
        assert ExpectationSnapshot.objects.get(key="paris-weather").value["location"] == "Paris"

    def test_a_suite_whose_assertions_all_hold_passes(self, alice: User) -> None:
        run = imported_run(alice, [assertion for assertion, passes in ASSERTIONS if passes])

        assert (run.passed, run.verdict) == (True, "pass"), (run.status, run.error, run.score_reason)
