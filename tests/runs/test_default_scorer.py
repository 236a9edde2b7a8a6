from __future__ import annotations

from runs.scoring import default_verdict


class DefaultScorerTests:
    def test_all_expected_tools_called_scores_one(self) -> None:
        verdict = default_verdict(expected_tools=["a", "b"], called=["b", "a", "a"])

        assert verdict.score == 1.0
        assert verdict.reason == "All expected tools were called: a, b."

    def test_it_scores_the_fraction_called_and_names_the_missing(self) -> None:
        verdict = default_verdict(expected_tools=["a", "b", "c", "d"], called=["a", "x"])

        assert verdict.score == 0.25
        assert verdict.reason == "Missing expected tools: b, c, d (1 of 4 called)."

    def test_without_expected_tools_any_call_passes(self) -> None:
        assert default_verdict(expected_tools=[], called=["x"]).score == 1.0
        assert default_verdict(expected_tools=[], called=[]).score == 0.0
