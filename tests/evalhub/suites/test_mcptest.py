"""mcptest v1 suites: the conversion (pure) with its precise report, and the import through the command."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command

from evalhub.providers.models import Provider
from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from evalhub.suites.mcptest import MAPPING, convert, mapping_table
from evalhub.suites.mcptest.load import load_mcptest as load
from evalhub.suites.validation import problems_of
from scorers.models import Scorer

SUITE = Path(__file__).with_name("mcptest_suite.yaml")


def converted() -> tuple[dict, list[str]]:  # type: ignore[type-arg]
    conversion = convert(load(SUITE.read_text()).data, provider="EvalHub offline", model="evalhub-offline")
    return conversion.suite, [str(note) for note in conversion.notes]


SERVERS = {"weather": {"command": ["python", "-m", "evalhub.demo_server"]}}
OFFLINE = {"provider": "EvalHub offline", "model": "evalhub-offline"}


class ConvertTests:
    def test_the_result_is_a_valid_evalhub_suite(self) -> None:
        suite, _ = converted()
        assert problems_of(suite) == []

    def test_the_report_lists_exactly_what_did_not_carry_over(self) -> None:
        _, notes = converted()
        assert notes == [
            "/compliance/0: unsupported: protocol compliance checks are not part of EvalHub",
            "/model_compatibility/0: unsupported: metadata only; run several models with `evalhub run --models`",
            "/servers/remote/auth/oauth: unsupported: only auth.bearer_token_env is supported",
            "/servers/remote/wait_for_ready: unsupported: no EvalHub server setting for this",
            "/agents/0/models/0: approximated: runs on provider 'EvalHub offline' (choose with --provider)",
            "/agents/0/models/1: approximated: one model per scenario: run it with --models",
            "/agents/0/turns: approximated: the prompt is sent first, then each turn: per_turn[i] is turn i+1",
            "/agents/0/expect/10: unsupported: target 'conversation.tokens.total' with matcher 'regex': "
            "no EvalHub expectation reads this target",
            "/agents/0/expect/11: unsupported: target 'tool_calls[0].inputs_digest' with matcher 'exact': "
            "no EvalHub expectation reads this target",
            "/agents/0/expect/16: unsupported: target 'final_response' with matcher 'similar': "
            "similar needs an embeddings model; EvalHub has no embedding matcher",
            "/agents/0/eval/mcp_use: unsupported: judged trace metrics are not supported; use a judge scorer",
            "/agents/0/eval/rubric: approximated: weighted criteria judged together, as one rubric",
            "/tools/0: approximated: no timeout_ms: unbounded in mcptest; EvalHub bounds every run, here at its "
            "largest (1200 s)",
            "/evals/0: approximated: no max_tool_calls or time_budget: unbounded in mcptest; EvalHub bounds every run, "
            "here at its largest (500 tool calls, 1200 s)",
        ]

    def test_agent_fields_and_expectations_map(self) -> None:
        suite, _ = converted()
        agent, tool_test, evaluation = suite["scenarios"]
        assert {k: agent[k] for k in ("name", "server", "model", "prompt", "max_turns", "time_limit_seconds")} == {
            "name": "weather routes",
            "server": "weather",
            "model": "evalhub-offline",
            "prompt": "What is the weather in Paris?",
            "max_turns": 6,
            "time_limit_seconds": 30,
        }
        assert (agent["max_tool_calls"], agent["token_budget"], agent["tags"]) == (5, 50000, ["smoke", "weather"])
        # Every matcher maps one to one onto a $-matcher on the target reading the same value.
        assert agent["expectations"] == [
            {"kind": "tool_names", "transform": ".[0]", "matches": "get_forecast"},
            {"kind": "tool_called", "tool": "get_forecast", "args": {"latitude": 48.85}, "call": "first"},
            {"kind": "tool_names", "matches": {"$containsAll": ["get_forecast"]}},
            {"kind": "tool_names", "matches": {"$not": {"$contains": "book_flight"}}},
            {"kind": "no_redundant_calls"},
            {"kind": "tool_result", "tool": "get_forecast", "call": "first", "path": "$.isError", "matches": False},
            {
                "kind": "tool_result",
                "tool": "get_forecast",
                "call": "first",
                "path": "$.content[0].text",
                "matches": {"$regex": "°"},
            },
            {"kind": "final_answer", "matches": {"$icontains": "paris"}, "description": "names the city"},
            {"kind": "stop_reason", "equals": "completed"},
            {"kind": "tool_names", "transform": ".[1]", "matches": "get_forecast"},
            {
                "kind": "tool_called",
                "tool": "get_forecast",
                "args": {"city": {"$anyOf": ["Paris", "paris"]}},
                "call": {"nth": 2},
            },
            {"kind": "tool_names", "matches": {"$containsAny": ["a", "b"]}},
            {"kind": "final_answer", "matches": {"$not": {"$contains": "error"}}},
            {"kind": "tool_names", "matches": 3, "transform": "length"},
        ]
        assert agent["scorers"] == ["weather routes rubric", "weather routes rubric 2"]
        assert agent["pass_threshold"] == 0.7  # the eval rubric's threshold, the last one given
        assert tool_test["expectations"][0] == {
            "kind": "tool_called",
            "tool": "get_forecast",
            "args": {"latitude": 48.85, "longitude": 2.35},
            "match": "exact",
        }
        assert tool_test["expectations"][2] == {
            "kind": "tool_result",
            "tool": "get_forecast",
            "call": "first",
            "path": "$.content",
            "matches": {"$snapshot": "forecast"},
        }
        # mcptest calls the tool itself: an execution-level scenario, no model.
        assert (tool_test["level"], tool_test["tool_call"], tool_test["max_turns"]) == (
            "execution",
            {"tool": "get_forecast", "arguments": {"latitude": 48.85, "longitude": 2.35}},
            1,
        )
        # from_env is never read at import (it would read EvalHub's own environment): the run reads it.
        assert evaluation["prompt"] == "Summarize the weather in Paris for ${who}."
        assert evaluation["variables"] == {"who": {"env": "MCPTEST_WHO", "default": "world"}}
        assert evaluation["pass_threshold"] == 0.6

    def test_scripted_turns_become_the_prompt_and_follow_ups_with_per_turn_expectations(self) -> None:
        agent = {
            "name": "trip",
            "model": "evalhub-offline",
            "servers": ["weather"],
            "turns": [{"user": "Find a flight to Paris"}, {"user": "Book it"}],
            "expect": [
                {"target": "conversation.per_turn[1].tool_calls[0].name", "matcher": {"exact": "book_flight"}},
                {"target": "conversation.per_turn[1].tool_calls[0].args.to", "matcher": {"exact": "CDG"}},
                {"target": "conversation.per_turn[0].final_response", "matcher": {"contains": "Paris"}},
                {"target": "conversation.per_turn[1].conversation.stop_reason", "matcher": {"exact": "completed"}},
            ],
        }
        conversion = convert({"servers": SERVERS, "agents": [agent]}, **OFFLINE)
        (scenario,) = conversion.suite["scenarios"]

        assert (scenario["prompt"], scenario["conversation"]) == ("Find a flight to Paris", {"turns": ["Book it"]})
        assert scenario["expectations"] == [
            {"kind": "tool_names", "transform": ".[0]", "matches": "book_flight", "turn": 1},
            {"kind": "tool_called", "tool": "book_flight", "args": {"to": "CDG"}, "call": "first", "turn": 1},
            {"kind": "final_answer", "matches": {"$contains": "Paris"}, "turn": 0},
        ]
        assert "/agents/0/expect/3: unsupported: stop_reason is about the whole run, not a turn" in [
            str(note) for note in conversion.notes
        ]
        assert problems_of(conversion.suite) == []

    def test_a_simulated_user_maps_goal_persona_and_turn_cap(self) -> None:
        agent = {
            "name": "sim",
            "model": "evalhub-offline",
            "servers": ["weather"],
            "turns": {"simulate": {"goal": "Book a flight to Paris", "persona": "terse", "max_turns": 3}},
            "max_tool_calls": 5,
            "time_budget": "60s",
        }
        conversion = convert({"servers": SERVERS, "agents": [agent]}, **OFFLINE)
        (scenario,) = conversion.suite["scenarios"]

        assert scenario["prompt"] == "Book a flight to Paris"
        assert scenario["conversation"] == {
            "simulate": {"goal": "Book a flight to Paris", "persona": "terse", "max_user_turns": 3}
        }
        assert [str(note) for note in conversion.notes] == [
            "/agents/0/model: approximated: runs on provider 'EvalHub offline' (choose with --provider)",
            "/agents/0/turns/simulate: approximated: the goal is the first user message",
        ]
        assert problems_of(conversion.suite) == []

    def test_servers_and_providers_keep_secrets_as_references(self) -> None:
        suite, _ = converted()
        weather, remote = suite["servers"]
        assert (weather["transport"], weather["command"], weather["args"]) == (
            "stdio",
            "python",
            ["-m", "evalhub.demo_server"],
        )
        assert remote["bearer_token"] == "${REMOTE_TOKEN}"
        assert remote["headers"] == {"X-Tenant": "acme", "X-API-Key": "${ACME_KEY}"}
        assert suite["providers"] == [
            {"name": "openrouter", "base_url": "https://openrouter.ai/api/v1", "api_key": "${OPENROUTER_API_KEY}"}
        ]

    def test_the_readme_example_imports_with_only_the_model_note(self) -> None:
        readme = (Path(__file__).parents[3] / "README.md").read_text()
        example = readme.split("\n# suite.yaml (mcptest v1)", 1)[1].split("\n", 1)[1].split("```", 1)[0]

        conversion = convert(load(example).data, **OFFLINE)

        assert [str(note) for note in conversion.notes] == [
            "/agents/0/model: approximated: runs on provider 'EvalHub offline' (choose with --provider)",
            "/agents/0: approximated: no max_tool_calls or time_budget: unbounded in mcptest; EvalHub bounds every "
            "run, here at its largest (500 tool calls, 1200 s)",
        ]
        expectations = conversion.suite["scenarios"][0]["expectations"]
        assert [e["kind"] for e in expectations] == ["tool_names", "tool_names", "final_answer"]

    def test_natural_guesses_at_the_format_say_how_to_write_them(self) -> None:
        agent = {
            "name": "guess",
            "model": "evalhub-offline",
            "servers": ["weather"],
            "prompt": "Hi",
            "expect": {"final_response": {"icontains": "paris"}},
        }
        listed = {**agent, "expect": [{"target": "tool_names", "matcher": {"not": ["book_flight"]}}]}

        conversion = convert({"servers": SERVERS, "agents": [agent, listed]}, **OFFLINE)

        # mcptest refuses both files; so does the import, saying how they are written.
        assert conversion.problems == [
            (
                "/agents/0/expect/final_response",
                'unknown key "final_response": final_response is an assertion target, not a key of expect: write '
                "it under expect (or expect.assertions) as `- target: final_response` with `matcher: {…}`",
            ),
            ("/agents/1/expect/0/matcher/not", "expected a mapping, got a list"),
        ]

    def test_the_mapping_table_has_one_row_per_mapping(self) -> None:
        table = mapping_table()
        assert all(source in table for source, _, _ in MAPPING)
        assert "agents[].time_budget\n    → scenarios[].time_limit_seconds" in table


@pytest.mark.django_db
class ImportCommandTests:
    def test_import_creates_everything_and_prints_the_report(self, alice: User, settings: object) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["REMOTE_TOKEN", "ACME_KEY", "OPENROUTER_API_KEY", "MCPTEST_WHO"]  # type: ignore[attr-defined]
        out, err = io.StringIO(), io.StringIO()
        call_command("evalhub", "import-mcptest", "-f", str(SUITE), stdout=out, stderr=err)
        assert "Plan: 9 to create, 0 to change, 0 to delete." in out.getvalue()
        assert "34 item(s): 21 imported exactly, 5 imported with an approximation, 8 refused." in err.getvalue()
        assert sorted(Scenario.objects.values_list("name", flat=True)) == [
            "forecast for Paris",
            "summary on topic",
            "weather routes",
        ]
        assert McpServer.objects.get(name="remote").secrets()["bearer_token"] == "${REMOTE_TOKEN}"
        assert Provider.objects.filter(name="openrouter").exists()
        assert Scorer.objects.filter(kind="judge").count() == 3

    def test_mapping_alone_prints_the_table_without_a_file(self) -> None:
        out = io.StringIO()

        call_command("evalhub", "import-mcptest", "--mapping", stdout=out)

        assert out.getvalue() == mapping_table() + "\n"

    def test_without_a_file_or_mapping_it_says_what_it_needs(self) -> None:
        with pytest.raises(CommandError, match=r"import-mcptest needs -f FILE \(the mcptest suite\), or --mapping"):
            call_command("evalhub", "import-mcptest")

    def test_a_dry_run_imports_nothing(self, alice: User, settings: object) -> None:
        settings.EVALHUB_SECRET_ENV_ALLOWLIST = ["*"]  # type: ignore[attr-defined]
        out = io.StringIO()
        call_command("evalhub", "import-mcptest", "-f", str(SUITE), "--dry-run", stdout=out, stderr=io.StringIO())
        assert "Dry run: nothing was changed." in out.getvalue()
        assert not Scenario.objects.exists() and not McpServer.objects.exists()
