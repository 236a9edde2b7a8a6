"""The fault injection's validation: every problem is named with its place."""

from __future__ import annotations

import pytest

from runs.fault_injection.spec import ALL_TOOLS, Fault, InvalidFaults, parse_plan, plan_errors


class ParsePlanTests:
    def test_empty_is_no_plan(self) -> None:
        assert parse_plan({}).is_empty
        assert parse_plan(None).is_empty

    def test_it_reads_a_fault_with_defaults(self) -> None:
        plan = parse_plan({"faults": [{"kind": "hang"}], "recovery": {"max_detection_ms": 3000}, "seed": 4})
        assert plan.faults == (Fault(name="hang *", kind="hang", tool=ALL_TOOLS),)
        assert (plan.recovery.max_detection_ms, plan.recovery.is_set, plan.seed) == (3000, True, 4)

    def test_a_fault_matches_its_tool_or_every_tool(self) -> None:
        one, every = parse_plan({"faults": [{"kind": "drop", "tool": "search"}, {"kind": "hang", "tool": "*"}]}).faults
        assert (one.matches("search"), one.matches("book"), every.matches("book")) == (True, False, True)

    @pytest.mark.parametrize(
        ("value", "error"),
        [
            ([], "fault_injection: must be a JSON object with `faults` and optionally `recovery`"),
            (
                {"faults": [{"kind": "explode"}]},
                "fault_injection.faults[0].kind: must be one of hang, slow, error, wedged, drop, recover_after, "
                "got 'explode'",
            ),
            (
                {"faults": [{"kind": "slow"}]},
                "fault_injection.faults[0].delay_ms: a slow fault needs the delay in milliseconds (1 to 600000)",
            ),
            (
                {"faults": [{"kind": "recover_after"}]},
                "fault_injection.faults[0].failures: recover_after needs how many calls fail before the tool answers",
            ),
            (
                {"faults": [{"kind": "hang", "probability": 1.5}]},
                "fault_injection.faults[0].probability: must be a number from 0 to 1, got 1.5",
            ),
            (
                {"faults": [{"kind": "hang", "probability": 0.5, "on_call": 2}]},
                "fault_injection.faults[0]: give `on_call` or `probability`, not both",
            ),
            (
                {"faults": [{"kind": "error", "as": "http"}]},
                'fault_injection.faults[0].as: must be "result" (an isError result) or "jsonrpc" (a JSON-RPC error)',
            ),
            (
                {"faults": [{"kind": "hang", "name": "a"}, {"kind": "drop", "name": "a"}]},
                "fault_injection.faults: the name 'a' is used twice; give each fault its own name",
            ),
            (
                {"faults": [{"kind": "hang", "tools": "x"}]},
                "fault_injection.faults[0]: unknown field 'tools' (allowed: as, code, "
                "delay_ms, fail_as, failures, kind, message, name, on_call, probability, tool)",
            ),
            (
                {"recovery": {"max_detection_ms": 0}},
                "fault_injection.recovery.max_detection_ms: must be a whole number from 1 to 3600000, got 0",
            ),
            (
                {"recovery": {"require_told_user": "yes"}},
                "fault_injection.recovery.require_told_user: must be true or false",
            ),
            (
                {"recovery": {"told_user_pattern": "("}},
                "fault_injection.recovery.told_user_pattern: not a valid regular expression "
                "(missing ), unterminated subpattern at position 0)",
            ),
        ],
    )
    def test_it_names_each_problem(self, value: object, error: str) -> None:
        assert plan_errors(value) == [error]
        with pytest.raises(InvalidFaults):
            parse_plan(value)
