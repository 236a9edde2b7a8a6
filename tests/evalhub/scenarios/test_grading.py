"""evalhub.scenarios.grading: how a scenario's page says it is graded, without a database."""

from __future__ import annotations

from evalhub.scenarios.grading import AttachedScorer, ExpectationLine, ScorerLine, grading_summary


class GradingSummaryTests:
    def test_each_expectation_gates_unless_it_is_not_required(self) -> None:
        grading = grading_summary(
            expectations=[
                {"kind": "tool_called", "tool": "get_weather", "args": {"latitude": {"between": [-90, 90]}}},
                {"kind": "final_answer", "contains": "Paris", "required": False, "weight": 2},
                {"kind": "tool_not_called", "tool": "book_flight", "description": "Never books without asking"},
            ],
            scorers=[],
            expected_tools=["get_weather"],
            tool_errors_expected=False,
            threshold=0.7,
        )

        assert grading.expectations == (
            ExpectationLine(
                kind="tool_called",
                tool="get_weather",
                sentence="get_weather called with latitude.between = [-90, 90]",
                gating=True,
                weight=1.0,
            ),
            ExpectationLine(
                kind="final_answer", tool="", sentence=grading.expectations[1].sentence, gating=False, weight=2.0
            ),
            ExpectationLine(
                kind="tool_not_called",
                tool="book_flight",
                sentence="Never books without asking",
                gating=True,
                weight=1.0,
            ),
        )
        assert "Paris" in grading.expectations[1].sentence
        # Expected tools only matter to the default scorer, which does not run beside expectations.
        assert grading.default_scorer == "" and grading.gates == 2

    def test_scorers_gate_at_their_own_threshold_or_the_scenarios_or_are_advisory(self) -> None:
        grading = grading_summary(
            expectations=[],
            scorers=[
                AttachedScorer(scorer_id=1, name="Coords", kind="code", advisory=False, threshold=0.9),
                AttachedScorer(scorer_id=2, name="Judge", kind="judge", advisory=False, threshold=None),
                AttachedScorer(scorer_id=3, name="Tone", kind="judge", advisory=True, threshold=None),
            ],
            expected_tools=[],
            tool_errors_expected=True,
            threshold=0.6,
        )

        assert grading.scorers == (
            ScorerLine(scorer_id=1, name="Coords", kind="code", gating=True, threshold=0.9, own_threshold=True),
            ScorerLine(scorer_id=2, name="Judge", kind="judge", gating=True, threshold=0.6, own_threshold=False),
            ScorerLine(scorer_id=3, name="Tone", kind="judge", gating=False, threshold=0.6, own_threshold=False),
        )
        assert grading.gates == 2 and grading.tool_errors_expected and grading.default_scorer == ""

    def test_the_default_scorer_says_what_it_checks(self) -> None:
        def default(tools: list[str], errors_expected: bool) -> str:
            return grading_summary(
                expectations=[],
                scorers=[],
                expected_tools=tools,
                tool_errors_expected=errors_expected,
                threshold=0.7,
            ).default_scorer

        assert default(["get_weather", "search_flights", "get_weather"], False) == (
            "It passes when every expected tool is called (get_weather → search_flights) and no tool call returns "
            "an error."
        )
        assert default([], True) == (
            "It passes when any tool is called and tool errors are expected, so they do not fail it."
        )

    def test_a_stored_expectation_that_no_longer_validates_is_named_not_described(self) -> None:
        grading = grading_summary(
            expectations=[{"kind": "tool_called"}, {"kind": "no_such_kind"}, "text"],
            scorers=[],
            expected_tools=[],
            tool_errors_expected=False,
            threshold=0.7,
        )

        assert [(line.kind, line.sentence) for line in grading.expectations] == [
            ("tool_called", ""),
            ("no_such_kind", ""),
            ("?", ""),
        ]
        assert all(line.error for line in grading.expectations)
        assert "tool" in grading.expectations[0].error
