"""mcptest's faults[], inject: and recovery: imported as a scenario's fault_injection."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml
from django.contrib.auth.models import User
from django.core.management import call_command

from evalhub.scenarios.models import Scenario
from evalhub.suites.mcptest import convert
from evalhub.suites.validation import problems_of
from runs.fault_injection.spec import parse_plan

OFFLINE = {"provider": "EvalHub offline", "model": "evalhub-offline"}
SUITE = {
    "servers": {"faulty": {"command": ["python", "-m", "evalhub.demo_server"]}},
    "faults": [
        {"name": "hung-search", "target": {"tool": "search_flights"}, "kind": "hang"},
        {
            "name": "slow-weather",
            "target": {"tool": "get_weather", "server": "faulty"},
            "kind": "slow",
            "delay_ms": 800,
        },
        {"name": "flaky", "target": {"server": "faulty"}, "kind": "recover_after", "failures": 2},
        {"name": "elsewhere", "target": {"server": "other"}, "kind": "wedged"},
    ],
    "agents": [
        {
            "name": "recovers from a hung search tool",
            "model": "evalhub-offline",
            "servers": ["faulty"],
            "inject": ["hung-search", "slow-weather", "flaky", "elsewhere"],
            "prompt": "Search for flights from LHR to CDG tomorrow.",
            "recovery": {"max_detection_ms": 3000, "max_recovery_ms": 5000, "require_clean_timeout": True},
        }
    ],
}


class McptestFaultsTests:
    def test_faults_inject_and_recovery_become_the_scenarios_fault_injection(self) -> None:
        conversion = convert(SUITE, **OFFLINE)
        [scenario] = conversion.suite["scenarios"]
        assert scenario["fault_injection"] == {
            "faults": [
                {"name": "hung-search", "kind": "hang", "tool": "search_flights"},
                {"name": "slow-weather", "kind": "slow", "tool": "get_weather", "delay_ms": 800},
                {"name": "flaky", "kind": "recover_after", "failures": 2},
            ],
            "recovery": {"max_detection_ms": 3000, "max_recovery_ms": 5000, "require_clean_timeout": True},
        }
        assert parse_plan(scenario["fault_injection"]).faults[2].fail_as == "hang"  # as mcptest's failures hang
        assert problems_of(conversion.suite) == []
        assert [str(note) for note in conversion.notes] == [
            "/agents/0/model: approximated: runs on provider 'EvalHub offline' (choose with --provider)",
            "/agents/0: approximated: no max_tool_calls or time_budget: unbounded in mcptest; EvalHub bounds every "
            "run, here at its largest (500 tool calls, 1200 s)",
            "/faults/3: approximated: targets server 'other', not this agent's: not injected",
            "/agents/0/inject: approximated: mcptest hangs in virtual time; EvalHub waits the server's request "
            "timeout: set it at most 3000 ms for a hang to time out within max_detection_ms",
        ]

    def test_a_dangling_inject_name_refuses_the_import(self) -> None:
        agent = {**SUITE["agents"][0], "inject": ["nope"]}  # type: ignore[dict-item]
        conversion = convert({**SUITE, "agents": [agent]}, **OFFLINE)
        assert conversion.problems == [("/agents/0/inject/0", "no fault named 'nope' under faults")]

    def test_a_suite_files_bad_fault_is_named_with_its_place(self) -> None:
        suite = convert(SUITE, **OFFLINE).suite
        suite["scenarios"][0]["fault_injection"]["faults"][0]["kind"] = "melt"
        assert problems_of(suite) == [
            (
                "/scenarios/0/fault_injection/faults/0/kind",
                "must be one of hang, slow, error, wedged, drop, recover_after, got 'melt'",
            )
        ]


@pytest.mark.django_db
def test_the_import_command_stores_it(alice: User, tmp_path: Path) -> None:
    path = tmp_path / "faults.yaml"
    path.write_text(yaml.safe_dump(SUITE))
    call_command("evalhub", "import-mcptest", "-f", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    scenario = Scenario.objects.get(name="recovers from a hung search tool")
    assert [fault.kind for fault in parse_plan(scenario.fault_injection).faults] == ["hang", "slow", "recover_after"]
