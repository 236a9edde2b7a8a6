"""Suite files checked whole: file, line, JSON pointer and a suggestion for every problem; the published schema."""

from __future__ import annotations

import pytest
from jsonschema import Draft202012Validator

from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from evalhub.suites.schema import suite_schema
from evalhub.suites.sections import SECTIONS
from evalhub.suites.validation import InvalidSuite, engine_path_to_pointer, read_suite

GOOD = """\
version: 1
servers:
- name: weather
  transport: stdio
  command: python
scenarios:
- name: paris
  server: weather
  provider: EvalHub offline
  model: evalhub-offline
  prompt: Weather in Paris?
  expectations:
  - kind: tool_called
    tool: get_weather
    args:
      latitude: {$range: [48, 49]}
"""


def problems(text: str) -> list[str]:
    with pytest.raises(InvalidSuite) as raised:
        read_suite(text, "evals.yaml")
    return [str(problem) for problem in raised.value.problems]


class ReadSuiteTests:
    def test_a_good_file_reads(self) -> None:
        data, source = read_suite(GOOD, "evals.yaml")
        assert data["scenarios"][0]["expectations"][0]["args"] == {"latitude": {"$range": [48, 49]}}
        assert source.line_of("/scenarios/0/prompt") == 11

    def test_an_unknown_matcher_names_line_pointer_and_suggestion(self) -> None:
        assert problems(GOOD.replace("$range", "$rnage")) == [
            'evals.yaml:16 /scenarios/0/expectations/0/args/latitude: unknown matcher "$rnage"; did you mean "$range"?'
        ]

    def test_conversation_and_tool_mode_read_and_a_bad_conversation_names_its_line(self) -> None:
        text = GOOD + "  tool_mode: code\n  conversation:\n    turns: [Thanks, now book it.]\n"
        data, _ = read_suite(text, "evals.yaml")
        assert (data["scenarios"][0]["tool_mode"], data["scenarios"][0]["conversation"]) == (
            "code",
            {"turns": ["Thanks", "now book it."]},
        )
        bad = GOOD + "  conversation:\n    simulate:\n      goal: Book it\n      max_user_turns: 0\n"
        assert problems(bad) == [
            "evals.yaml:20 /scenarios/0/conversation/simulate/max_user_turns: expected an integer from 1 to 50, got 0."
        ]
        assert problems(GOOD + "  tool_mode: codes\n")[0].startswith("evals.yaml:17 /scenarios/0/tool_mode:")

    def test_an_execution_level_scenario_reads_and_needs_its_tool_call(self) -> None:
        call = "  level: execution\n  tool_call: {tool: get_weather, arguments: {latitude: 48.85, longitude: 2.35}}\n"
        data, _ = read_suite(GOOD + call, "evals.yaml")
        assert data["scenarios"][0]["tool_call"] == {
            "tool": "get_weather",
            "arguments": {"latitude": 48.85, "longitude": 2.35},
        }
        assert problems(GOOD + "  level: execution\n") == [
            "evals.yaml:7 /scenarios/0/tool_call: an execution-level scenario needs tool_call: {tool, arguments}"
        ]

    def test_only_a_stdio_server_may_be_kept_warm(self) -> None:
        data, _ = read_suite(GOOD.replace("  command: python\n", "  command: python\n  warm_reuse: true\n"), "e.yaml")
        assert data["servers"][0]["warm_reuse"] is True
        remote = "version: 1\nservers:\n- name: remote\n  url: https://mcp.example.com/mcp\n  warm_reuse: true\n"
        assert problems(remote) == ["evals.yaml:5 /servers/0/warm_reuse: must be false"]

    def test_unknown_keys_are_errors_with_suggestions(self) -> None:
        text = GOOD.replace("  prompt:", "  promt:").replace("servers:", "servres:")
        assert problems(text) == [
            'evals.yaml:2 /servres: unknown key "servres"; did you mean "servers"?',
            'evals.yaml:7 /scenarios/0: missing required key "prompt"',
            'evals.yaml:11 /scenarios/0/promt: unknown key "promt"; did you mean "prompt"?',
        ]

    def test_values_of_the_wrong_kind_say_what_was_expected(self) -> None:
        text = GOOD.replace("transport: stdio", "transport: stdoi").replace("  prompt:", "  max_turns: many\n  prompt:")
        assert problems(text) == [
            'evals.yaml:4 /servers/0/transport: expected one of stdio, http, sse; did you mean "stdio"?',
            "evals.yaml:11 /scenarios/0/max_turns: expected an integer, got a string",
        ]

    def test_duplicate_names_and_keys_and_bad_yaml(self) -> None:
        assert problems(GOOD + "- name: paris\n  server: weather\n  provider: p\n  model: m\n  prompt: p\n") == [
            'evals.yaml:17 /scenarios/1/name: "paris" is already the name of /scenarios/0'
        ]
        assert problems("servers: []\nservers: []\n") == ["evals.yaml:2 /: duplicate key 'servers'"]
        assert problems("servers: [\n") == [
            "evals.yaml:2 /: not valid YAML: expected the node content, but found '<stream end>'"
        ]

    def test_unsafe_tags_are_refused(self) -> None:
        (message,) = problems("servers: !!python/object/apply:os.system [echo hi]\n")
        assert message.startswith("evals.yaml:1 /: not valid YAML: could not determine a constructor")

    def test_engine_paths_become_pointers(self) -> None:
        assert engine_path_to_pointer('expectations[2].args["x-y"].legs[0]') == "/expectations/2/args/x-y/legs/0"


class SchemaTests:
    def test_the_schema_is_valid_json_schema_and_accepts_a_good_file(self) -> None:
        schema = suite_schema("https://evalhub.example.com/api/v1/schemas/suite.json")
        Draft202012Validator.check_schema(schema)
        data, _ = read_suite(GOOD)
        assert not list(Draft202012Validator(schema).iter_errors(data))

    def test_the_schema_catches_what_editors_should_flag(self) -> None:
        data, _ = read_suite(GOOD)
        data["scenarios"][0]["expectations"][0]["args"] = {"latitude": {"$rnage": [1, 2]}}
        data["servers"][0]["comand"] = "x"
        errors = list(Draft202012Validator(suite_schema()).iter_errors(data))
        assert {tuple(error.absolute_path)[:2] for error in errors} == {("scenarios", 0), ("servers", 0)}


@pytest.mark.parametrize(
    ("section", "model"), [("scenarios", Scenario), ("servers", McpServer)], ids=["scenarios", "servers"]
)
def test_section_defaults_are_the_models_defaults(section: str, model: type) -> None:
    for key, field in SECTIONS[section].fields.items():
        attr = SECTIONS[section].attr(key)
        if field.required or attr is None:
            continue
        default = model._meta.get_field(attr).get_default()
        assert field.default == default, key


class UnsafeYamlTests:
    def test_aliases_and_non_text_keys_are_refused(self) -> None:
        assert problems("a: &x [1]\nb: *x\n") == [
            "evals.yaml:1 /b: anchors and aliases (&name, *name) are not supported: write the value out"
        ]
        assert problems("servers:\n  1: x\n") == ['evals.yaml:2 /servers: the key 1 is not text: quote it ("1")']
        assert problems("[" * 5000 + "]" * 5000) == ["evals.yaml /: nested too deeply"]
