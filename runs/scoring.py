"""The score step of a run: its scenario's expectations and scorers, or the default scorer when it has neither.

The scenario's expectations, when it has any, are one scorer result ("Expectations": the weighted fraction passed,
0 when a required one failed), with their checklist kept in the result's `details`. A run's score is the mean of
its results' scores; an errored scorer counts as 0 and a skipped judge (no judge model) is left out. It passes at
the scenario's threshold.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from runs.models import Run, ScoreResult
from scorers.contract import run_facts, scorer_input
from scorers.expectations import InvalidExpectations, evaluate_expectations
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
    """What every scorer receives for this run: {input, expected, output} in the reference's shapes, and `run`."""
    return scorer_input(
        prompt=run.settings.get("prompt", ""),
        expected=run.settings.get("expected"),
        final_text=run.final_text,
        transcript=run.transcript,
        tool_calls=run.tool_calls,
        all_tool_calls=run.all_tool_calls,
        run=run_facts(
            model=run.model,
            stop_reason=run.stop_reason,
            duration_ms=run.duration_ms,
            turns=len(run.model_calls),
            input_tokens=run.input_tokens,
            output_tokens=run.output_tokens,
            cost_usd=run.cost_usd,
            tool_mode=run.settings.get("tool_mode") or "direct",
        ),
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
        details={"judge": evaluation.judge} if evaluation.judge else None,
    )


EXPECTATIONS = "Expectations"


def _expectations_result(run: Run, record: dict[str, Any]) -> ScoreResult:
    """The scenario's expectations checked against the run, as one result whose `details` is the checklist."""
    started = time.perf_counter()
    result = ScoreResult(run=run, scorer_name=EXPECTATIONS, scorer_kind="expectations")
    try:
        checked = evaluate_expectations(run.scenario.expectations, record)
    except InvalidExpectations as exc:
        # Saved lists are validated, so this means the engine's rules changed since: say what to fix, count 0.
        result.score, result.passed, result.outcome = 0.0, False, "errored"
        result.reason = "The scenario's expectations are invalid, so they count as 0: fix them on its form."
        result.error = "\n".join(exc.errors)
    else:
        result.score, result.passed = checked.score, checked.score >= run.threshold
        result.reason, result.details = checked.reason, checked.to_dict()
    result.duration_ms = round((time.perf_counter() - started) * 1000)
    return result


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
    results: list[ScoreResult] = []
    if scorers or run.scenario.expectations:
        record = run_record(run)
        if run.scenario.expectations:
            results.append(_expectations_result(run, record))
        results += [_result(run, scorer, scorer_evaluate(content=scorer, record=record)) for scorer in scorers]
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
