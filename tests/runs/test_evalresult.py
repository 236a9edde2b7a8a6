"""Run records as the evals/list proposal's EvalResult objects (runs/reports/evalresult.py), without a database."""

from __future__ import annotations

import json
from typing import Any

from runs.reports.evalresult import eval_results, to_evalresult


def record(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "settings": {"shipped_eval_id": "weather"},
        "status": "done",
        "passed": True,
        "duration_ms": 1234,
        "error": None,
        "score_reason": "1/1 expectations passed",
        "scores": [],
    }
    return base | fields


class EvalResultTests:
    def test_a_passed_exact_match_run_has_exactly_the_proposals_fields(self) -> None:
        assert eval_results([record()]) == [
            {"evalId": "weather", "passed": True, "durationMs": 1234, "reason": "1/1 expectations passed"}
        ]

    def test_a_judge_gives_its_own_reason(self) -> None:
        judged = record(
            passed=False,
            scores=[
                {"scorer_kind": "expectations", "reason": "ignored"},
                {"scorer_kind": "judge", "reason": "It booked a flight."},
            ],
        )

        assert eval_results([judged])[0] == {
            "evalId": "weather",
            "passed": False,
            "durationMs": 1234,
            "reason": "It booked a flight.",
        }

    def test_an_errored_or_unfinished_run_did_not_pass_and_says_why(self) -> None:
        errored = record(status="error", passed=False, error={"step": "connect", "message": "The server exited."})
        cancelled = record(status="cancelled", passed=None)
        unscored = record(passed=None, score_reason="Every scorer was skipped, so the run has no score.")

        results = eval_results([errored, cancelled, unscored])

        assert [result["passed"] for result in results] == [False, False, False]
        assert [result["reason"] for result in results] == [
            "The run failed at connect: The server exited.",
            "The run did not finish (cancelled).",
            "Every scorer was skipped, so the run has no score.",
        ]

    def test_runs_of_other_scenarios_are_left_out(self) -> None:
        assert eval_results([record(settings={"level": "scenario"}), record(settings={})]) == []
        assert json.loads(to_evalresult([record(settings={})])) == []
