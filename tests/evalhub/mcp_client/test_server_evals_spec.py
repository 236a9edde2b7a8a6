"""The evals/list proposal's rules for one Eval, checked without a server (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from evalhub.demo_server.evals import EVALS
from evalhub.mcp_client.server_evals import RawPage, cap_message, capped, listing, problem

ASK = [{"role": "user", "content": {"type": "text", "text": "Add 2 and 3."}}]
INVOCATION = {
    "id": "a",
    "name": "A",
    "gradingType": "exact-match",
    "input": {"type": "invocation", "messages": ASK},
    "expected": {"type": "exact-match", "toolName": "add", "arguments": {"a": 2}},
}
EXECUTION = {
    "id": "b",
    "name": "B",
    "gradingType": "exact-match",
    "input": {"type": "execution", "toolName": "add", "arguments": {"a": 2, "b": 3}},
    "expected": {"type": "exact-match", "content": [{"type": "text", "text": "5"}]},
}
SCENARIO = {
    "id": "c",
    "name": "C",
    "gradingType": "llm-as-judge",
    "input": {"type": "scenario", "messages": ASK, "maxTurns": 4},
    "expected": {"type": "llm-as-judge", "rubric": "PASS if the answer is 5."},
}


def changed(eval_: dict[str, Any], **parts: Any) -> dict[str, Any]:
    """`eval_` with top-level fields replaced; `input`/`expected` given as dicts are merged into the originals."""
    result = dict(eval_)
    for key, value in parts.items():
        result[key] = {**eval_[key], **value} if key in {"input", "expected"} else value
    return result


class ValidEvalTests:
    @pytest.mark.parametrize("eval_", [INVOCATION, EXECUTION, SCENARIO, *EVALS], ids=lambda e: e["id"])
    def test_it_has_no_problem(self, eval_: dict[str, Any]) -> None:
        assert problem(eval_) is None

    def test_unknown_fields_are_tolerated_for_later_versions_of_the_proposal(self) -> None:
        assert problem({**INVOCATION, "tags": ["fast"]}) is None


class InvalidEvalTests:
    @pytest.mark.parametrize(
        ("eval_", "reason"),
        [
            (changed(INVOCATION, id=""), "'id' must be a non-empty string"),
            (changed(INVOCATION, name=None), "'name' must be a non-empty string"),
            (changed(INVOCATION, description=3), "'description' must be a string"),
            (
                changed(INVOCATION, gradingType="regex"),
                "'gradingType' must be one of exact-match, llm-as-judge (got 'regex')",
            ),
            (
                changed(INVOCATION, input={"type": "unit"}),
                "'input.type' must be one of invocation, execution, scenario (got 'unit')",
            ),
            (
                changed(INVOCATION, expected={"type": "llm-as-judge"}),
                "'expected.type' ('llm-as-judge') must match 'gradingType' (exact-match)",
            ),
            (
                changed(INVOCATION, input={"messages": []}),
                "'input.messages' must be a non-empty list of sampling messages",
            ),
            (
                changed(INVOCATION, input={"messages": [{"role": "bot", "content": {"type": "text", "text": "hi"}}]}),
                "'input.messages[0]' is not a sampling message: role: Input should be 'user' or 'assistant'",
            ),
            (
                changed(INVOCATION, expected={"toolName": None}),
                "an invocation eval graded by exact-match needs 'expected.toolName'",
            ),
            (changed(INVOCATION, expected={"arguments": [2]}), "'expected.arguments' must be an object"),
            (changed(EXECUTION, input={"toolName": ""}), "'input.toolName' must be a non-empty string"),
            (changed(EXECUTION, input={"arguments": None}), "'input.arguments' must be an object"),
            (
                {**EXECUTION, "expected": {"type": "exact-match"}},
                "an execution eval graded by exact-match needs 'expected.content'",
            ),
            (changed(SCENARIO, input={"maxTurns": 0}), "'input.maxTurns' must be a positive integer (got 0)"),
            (changed(SCENARIO, input={"maxTurns": True}), "'input.maxTurns' must be a positive integer (got True)"),
            (changed(SCENARIO, expected={"rubric": "  "}), "'expected.rubric' must be a non-empty string"),
            (
                changed(SCENARIO, gradingType="exact-match", expected={"type": "exact-match", "content": "5"}),
                "a scenario eval cannot be graded by exact-match: multi-turn agent trajectories are "
                "non-deterministic (the proposal requires llm-as-judge)",
            ),
        ],
    )
    def test_it_is_refused_with_the_reason(self, eval_: dict[str, Any], reason: str) -> None:
        assert problem(eval_) == reason


class ListingTests:
    def test_positions_count_across_pages_and_a_repeated_id_is_refused(self) -> None:
        result = listing([[INVOCATION, EXECUTION], [SCENARIO, changed(EXECUTION, name="Again")]])

        assert [item["id"] for item in result["evals"]] == ["a", "b", "c"]
        assert result["invalid"] == [{"id": "b", "position": 4, "reason": "its id repeats the eval at position 2"}]

    @pytest.mark.parametrize(
        ("page", "reason"),
        [({"evals": {}}, "'evals' must be a list"), ({"evals": [], "nextCursor": 2}, "'nextCursor' must be a string")],
    )
    def test_a_page_of_the_wrong_shape_is_refused(self, page: dict[str, Any], reason: str) -> None:
        with pytest.raises(ValueError, match=reason):
            RawPage.of(page)


class CappedTests:
    """Issue 23, finding 7: what a server ships is bounded before it is stored or shown."""

    def test_nothing_left_out_is_no_cap(self) -> None:
        found = listing([[INVOCATION, EXECUTION]])

        assert capped(found, max_evals=2, max_bytes=10_000) == (found, None)

    def test_past_the_count_are_dropped_and_an_oversized_one_is_invalid_at_its_position(self) -> None:
        big = changed(EXECUTION, id="big", description="x" * 2_000)
        found = listing([[INVOCATION, "not an eval", big], [EXECUTION, SCENARIO]])

        kept, cap = capped(found, max_evals=1, max_bytes=1_000)

        assert [item["id"] for item in kept["evals"]] == ["a"]
        assert kept["invalid"] == [
            {"id": None, "position": 2, "reason": "it is not an object"}
        ]  # the oversized one (position 3) is past the count of invalid ones kept
        assert cap == {"shipped": 5, "kept": 1, "max_evals": 1, "oversized": 1, "max_bytes": 1_000, "invalid": 2}
        assert cap_message(cap) == (
            "The server ships 5 evals; the first 1 kept (at most 1 per server). 1 larger than 1,000 bytes each left "
            "out (listed as invalid). Only the first 1 of its 2 invalid evals are listed."
        )

    def test_an_invalid_evals_id_and_reason_are_clipped(self) -> None:
        huge_id = "i" * 100_000
        found = listing([[{"id": huge_id, "name": "N", "gradingType": "g" * 100_000}]])

        kept, cap = capped(found, max_evals=5, max_bytes=1_000)

        (bad,) = kept["invalid"]
        assert len(bad["id"] or "") == 200 and len(bad["reason"]) == 1_000 and cap is None
