"""What a run cost beyond its agent: its current LLM judges, added to each row by the database.

The Runs list and the run page read the same annotation, so the figures they show are the same.
"""

from __future__ import annotations

from django.db.models import Count, Q, QuerySet, Sum

from runs.models import Run

# A judge that was skipped (no judge model) made no call; earlier scorings were replaced by the current one.
_JUDGED = Q(score_results__is_current=True, score_results__scorer_kind="judge") & ~Q(score_results__outcome="skipped")


def with_judge_cost(runs: QuerySet[Run]) -> QuerySet[Run]:
    """Adds `judge_count`, `judge_usd` and `judge_unpriced` (judges whose price is unknown: their total is then
    unknown too, as for the agent's cost)."""
    return runs.annotate(
        judge_count=Count("score_results", filter=_JUDGED),
        judge_usd=Sum("score_results__cost_usd", filter=_JUDGED),
        judge_unpriced=Count("score_results", filter=_JUDGED & Q(score_results__cost_usd__isnull=True)),
    )
