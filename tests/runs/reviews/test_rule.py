"""The human verdict from reviews (majority, ties to the latest), agreement between people, the page's sentence."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from runs.reviews.rule import Vote, human_verdict, reviewer_agreement
from runs.reviews.text import ReviewLine, ScorerLine, judged_by, verdict_sentence

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def votes(*verdicts: str) -> list[Vote]:
    return [Vote(verdict, T0 + timedelta(minutes=n)) for n, verdict in enumerate(verdicts)]


class HumanVerdictTests:
    def test_nobody_reviewed_no_human_verdict(self) -> None:
        assert human_verdict([]) == ""

    def test_one_review_decides(self) -> None:
        assert human_verdict(votes("fail")) == "fail"

    def test_the_majority_wins_whatever_the_order(self) -> None:
        assert human_verdict(votes("fail", "pass", "pass")) == "pass"
        assert human_verdict(votes("pass", "pass", "fail")) == "pass"
        assert human_verdict(reversed(votes("fail", "fail", "pass"))) == "fail"

    def test_a_tie_goes_to_the_latest_review(self) -> None:
        assert human_verdict(votes("pass", "fail")) == "fail"
        assert human_verdict(votes("fail", "pass")) == "pass"
        assert human_verdict(reversed(votes("fail", "pass", "pass", "fail"))) == "fail"


class ReviewerAgreementTests:
    def test_runs_with_one_review_do_not_count(self) -> None:
        agreement = reviewer_agreement([["pass"], ["fail"]])
        assert (agreement.runs, agreement.pairs, agreement.rate) == (0, 0, None)

    def test_every_pair_of_a_runs_reviewers_counts_once(self) -> None:
        agreement = reviewer_agreement([["pass", "pass"], ["pass", "fail"], ["fail", "fail", "pass"]])
        # 1 agreeing pair + 0 of 1 + 1 of 3 (fail-fail) = 2 of 5
        assert (agreement.runs, agreement.pairs, agreement.agreeing_pairs) == (3, 5, 2)
        assert agreement.rate == 0.4


class SentenceTests:
    def test_the_issue_s_example(self) -> None:
        sentence = verdict_sentence(
            "pass",
            [ScorerLine("Restraint judge", True, True), ScorerLine("Style", False, False)],
            [ReviewLine("alice", "fail", "asked nothing before booking")],
            "",
        )
        assert sentence == "Judged pass by Restraint judge; reviewed fail by alice: “asked nothing before booking”"

    def test_a_failure_names_the_gating_scorers_that_failed_and_a_crash_its_cause(self) -> None:
        scorers = [ScorerLine("A", True, True), ScorerLine("B", False, True), ScorerLine("C", False, True)]
        assert judged_by("fail", scorers) == "Judged fail by B and C"
        assert judged_by("fail", [], "server") == "Judged fail (server)"
