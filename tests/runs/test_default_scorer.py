from __future__ import annotations

from runs.scoring import default_verdict


class DefaultScorerTests:
    def test_all_expected_tools_called_scores_one(self) -> None:
        verdict = default_verdict(expected_tools=["a", "b"], called=["b", "a", "a"])

        assert (verdict.score, verdict.passed) == (1.0, True)
        assert verdict.reason == "All expected tools were called: a, b."

    def test_it_scores_the_fraction_called_and_names_the_missing(self) -> None:
        verdict = default_verdict(expected_tools=["a", "b", "c", "d"], called=["a", "x"])

        assert (verdict.score, verdict.passed) == (0.25, False)
        assert verdict.reason == "Never called b, c, d (1 of 4 called)."

    def test_without_expected_tools_any_call_passes(self) -> None:
        assert default_verdict(expected_tools=[], called=["x"]).passed
        assert (
            default_verdict(expected_tools=[], called=[]).score,
            default_verdict(expected_tools=[], called=[]).passed,
        ) == (0.0, False)

    def test_a_failed_tool_call_fails_it_even_when_every_expected_tool_was_called(self) -> None:
        verdict = default_verdict(expected_tools=["wait"], called=["wait"], failed_calls=1)

        assert (verdict.score, verdict.passed) == (0.0, False)
        assert verdict.reason == "All expected tools were called: wait; 1 of 1 tool calls returned an error."

    def test_the_score_is_scaled_by_the_calls_that_succeeded(self) -> None:
        verdict = default_verdict(expected_tools=[], called=["a", "a", "a", "a"], failed_calls=1)

        assert (verdict.score, verdict.passed) == (0.75, False)

    def test_expected_tool_errors_do_not_fail_it(self) -> None:
        verdict = default_verdict(expected_tools=["wait"], called=["wait"], failed_calls=1, tool_errors_expected=True)

        assert (verdict.score, verdict.passed) == (1.0, True)
        assert verdict.reason.endswith("1 of 1 tool calls returned an error, as the scenario expects.")
