"""The score step of a run: its scenario's scorers, or the default scorer when it has none.

A run's score is the mean of its scorers' scores; an errored scorer counts as 0 and a skipped judge (no judge
model) is left out. It passes at the scenario's threshold.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import transaction

from runs.models import Run, ScoreResult
from scorers.contract import scorer_input
from scorers.models import Scorer
from scorers.services import Evaluation, scorer_evaluate


@dataclass(frozen=True)
class Verdict:
    score: float
    reason: str


def default_verdict(*, expected_tools: list[str], called: list[str]) -> Verdict:
    """With expected tools: the fraction of them called at least once. Without: 1 if any tool was called."""
    if not expected_tools:
        if called:
            return Verdict(1.0, f"Tools were called: {', '.join(dict.fromkeys(called))}.")
        return Verdict(0.0, "No tool was called (no expected tools were set, so any tool call would pass).")
    wanted = list(dict.fromkeys(expected_tools))
    missing = [name for name in wanted if name not in called]
    score = (len(wanted) - len(missing)) / len(wanted)
    if not missing:
        return Verdict(score, f"All expected tools were called: {', '.join(wanted)}.")
    called_count = len(wanted) - len(missing)
    return Verdict(score, f"Missing expected tools: {', '.join(missing)} ({called_count} of {len(wanted)} called).")


def run_record(run: Run) -> dict[str, Any]:
    """What every scorer receives for this run: {input, expected, output} in the reference's shapes."""
    return scorer_input(
        prompt=run.settings.get("prompt", ""),
        expected=run.settings.get("expected"),
        final_text=run.final_text,
        transcript=run.transcript,
        tool_calls=run.tool_calls,
        all_tool_calls=run.all_tool_calls,
    )


def _result(run: Run, scorer: Scorer, evaluation: Evaluation) -> ScoreResult:
    return ScoreResult(
        run=run,
        scorer=scorer,
        scorer_name=scorer.name,
        scorer_kind=scorer.kind,
        scorer_version=scorer.version,
        score=evaluation.score,
        passed=None if evaluation.score is None else evaluation.score >= run.threshold,
        reason=evaluation.reason,
        label=evaluation.label,
        console=evaluation.console,
        duration_ms=evaluation.duration_ms,
        error=evaluation.error,
        outcome=evaluation.outcome,
        input_tokens=evaluation.input_tokens,
        output_tokens=evaluation.output_tokens,
        cost_usd=evaluation.cost_usd,
    )


def _default_result(run: Run) -> ScoreResult:
    verdict = default_verdict(expected_tools=run.settings.get("expected_tools") or [], called=run.tool_names)
    return ScoreResult(
        run=run,
        scorer_name="Default scorer",
        scorer_kind="default",
        score=verdict.score,
        passed=verdict.score >= run.threshold,
        reason=verdict.reason,
    )


def score_run(run: Run, *, finishing: tuple[str, ...] = ()) -> bool:
    """Score a run with its scenario's current scorers; earlier results stay, marked not current.

    `finishing` names the fields of the running run's final state (the worker sets them on `run`): they are
    written together with the score, in one commit, and only if the run is still running. The worker thus marks a
    run done only with its score, and a run closed as lost while it was being scored stays so (returns False and
    saves nothing).
    """
    scorers = list(run.scenario.scorers.select_related("judge_provider"))
    if scorers:
        record = run_record(run)
        results = [_result(run, scorer, scorer_evaluate(content=scorer, record=record)) for scorer in scorers]
    else:
        results = [_default_result(run)]
    counted = [result for result in results if result.score is not None]
    if counted:
        run.score = sum(result.score or 0.0 for result in counted) / len(counted)
        run.passed = run.score >= run.threshold
        run.score_reason = (
            results[0].reason
            if len(results) == 1
            else " ".join(f"{r.scorer_name}: {r.reason or r.error}" for r in results)
        )
    else:
        run.score, run.passed = None, None
        run.score_reason = "Every scorer was skipped, so the run has no score."
    scored = ("score", "passed", "score_reason")
    with transaction.atomic():
        # The conditional UPDATE comes first: it locks the row, so the reaper waits for this commit or wins before.
        if finishing and not run.save_if_running([*scored, *finishing]):
            return False
        if not finishing:
            run.save(update_fields=scored)
        run.score_results.filter(is_current=True).update(is_current=False)
        ScoreResult.objects.bulk_create(results)
    return True
