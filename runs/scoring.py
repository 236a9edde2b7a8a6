"""The score step of a run. Without custom scorers a run gets the default scorer: were the expected tools called?"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from runs.models import Run, ScoreResult


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
    return Verdict(
        score, f"Missing expected tools: {', '.join(missing)} ({len(wanted) - len(missing)} of {len(wanted)} called)."
    )


def score_run(run: Run) -> None:
    """Score a finished run, replacing its current results (older ones stay in history)."""
    verdict = default_verdict(expected_tools=run.settings.get("expected_tools") or [], called=run.tool_names)
    with transaction.atomic():
        run.score_results.filter(is_current=True).update(is_current=False)
        ScoreResult.objects.create(
            run=run,
            scorer_name="Default scorer",
            scorer_kind="default",
            score=verdict.score,
            passed=verdict.score >= run.threshold,
            reason=verdict.reason,
        )
        run.score = verdict.score
        run.passed = verdict.score >= run.threshold
        run.score_reason = verdict.reason
        run.save(update_fields=["score", "passed", "score_reason"])
