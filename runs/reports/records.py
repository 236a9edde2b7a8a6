"""A run as plain JSON-safe data: what the API returns, what reports render, what the CLI writes with --json.

Reports work on these dicts, not on model instances, so the CLI renders the same reports from records it fetched
from a remote EvalHub's API.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from runs.models import Review, Run, ScoreResult

# The Runs list's row: everything but the heavy JSON (transcript, tool calls, model calls).
SUMMARY_FIELDS = (
    "id",
    "scenario_id",
    "scenario_name",
    "status",
    "stop_reason",
    "model",
    "tool_names",
    "cost_usd",
    "duration_ms",
    "created_at",
    "started_at",
    "finished_at",
    "score",
    "passed",
    "verdict",
    "auto_verdict",
    "human_verdict",
    "failure_cause",
    "failure_reason",
    "pass_threshold",
    "replay",
)
_HEAVY = ("transcript", "tool_calls", "all_tool_calls", "model_calls", "final_text")


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def summary_queryset(runs: QuerySet[Run]) -> QuerySet[Run]:
    return runs.select_related("scenario").defer(*_HEAVY)


def run_summary(run: Run) -> dict[str, Any]:
    return {
        "id": run.pk,
        "scenario_id": run.scenario_id,
        "scenario_name": run.scenario.name,
        "status": run.status,
        "stop_reason": run.stop_reason,
        "model": run.model,
        "tool_names": list(run.tool_names),
        "cost_usd": float(run.cost_usd) if run.cost_usd is not None else None,
        "duration_ms": run.duration_ms,
        "created_at": _iso(run.created_at),
        "started_at": _iso(run.started_at),
        "finished_at": _iso(run.finished_at),
        "score": run.score,
        "passed": run.passed,
        "verdict": run.verdict,
        # `verdict` is the human one when people reviewed the run (runs.run_verdict); both are kept.
        "auto_verdict": run.auto_verdict,
        "human_verdict": run.human_verdict or None,
        "failure_cause": run.failure_cause,
        "failure_reason": run.failure_reason,
        "pass_threshold": run.threshold,
        "replay": replay_record(run),
    }


def replay_record(run: Run) -> dict[str, Any] | None:
    """How a replayed run was answered (runs.cassettes), or None for a live run: pass rates must say which they
    count, so every record carries it."""
    if not run.replay:
        return None
    record: dict[str, Any] = {"mode": run.replay, "of": run.replay_of_id}
    if run.replay == "fork":
        record["fork"] = (run.settings or {}).get("fork")
    return record


def replay_label(record: dict[str, Any]) -> str:
    """A record's replay in a few words for reports and the CLI ("replay of #12, offline"); "" for a live run."""
    replay = record.get("replay")
    if not replay:
        return ""
    of = f" of #{replay['of']}" if replay.get("of") else ""
    how = {
        "cassette": "offline",
        "live": "live server",
        "fork": f"fork at step {(replay.get('fork') or {}).get('at_step')}",
    }
    return f"replay{of}, {how.get(replay['mode'], replay['mode'])}"


def score_record(result: ScoreResult) -> dict[str, Any]:
    return {
        "scorer_id": result.scorer_id,
        "scorer_name": result.scorer_name,
        "scorer_kind": result.scorer_kind,
        "scorer_version": result.scorer_version,
        "score": result.score,
        "passed": result.passed,
        "gating": result.gating,
        # Why a judge that would have gated did not: the judges gate made it advisory (it is not calibrated).
        "advisory_because": (result.details or {}).get("advisory_because", ""),
        "version": result.fingerprint or None,
        "judge_model": result.judge_model,
        # The judge was not asked again: its verdict on the same transcript was kept (scorers.judge_cache).
        "cached_verdict": bool((result.details or {}).get("cached")),
        "threshold": result.threshold,
        "outcome": result.outcome,
        "reason": result.reason,
        "label": result.label,
        "error": result.error,
        "duration_ms": result.duration_ms,
        "created_at": _iso(result.created_at),
    }


def record_queryset(runs: QuerySet[Run]) -> QuerySet[Run]:
    return runs.select_related("scenario", "provider", "server", "started_by").prefetch_related(
        "score_results", "reviews__reviewer"
    )


def run_record(run: Run) -> dict[str, Any]:
    """The full record: settings, transcript, every tool call, tokens, cost, error and the current scores."""
    current = [result for result in run.score_results.all() if result.is_current]
    return {
        **run_summary(run),
        "provider_name": run.provider.name if run.provider else None,
        "server_id": run.server_id,
        "server_name": run.server.name if run.server else None,
        "tools_hash": run.tools_hash,
        "settings": run.settings,
        "started_by": run.started_by.get_username() if run.started_by else None,
        "worker": run.worker,
        "cancel_requested": run.cancel_requested,
        "transcript": run.transcript,
        "tool_calls": run.tool_calls,
        "all_tool_calls": run.all_tool_calls,
        "final_text": run.final_text,
        "model_calls": run.model_calls,
        "server_start": run.server_start,
        "simulator_calls": run.simulator_calls,
        "input_tokens": run.input_tokens,
        "output_tokens": run.output_tokens,
        "cached_tokens": run.cached_tokens,
        "error": run.error,
        "score_reason": run.score_reason,
        "stages": run.stages,
        "self_judging": run.self_judging,
        "scores": [score_record(result) for result in current],
        "reviews": [review_record(review) for review in run.reviews.all()],
    }


def review_record(review: Review) -> dict[str, Any]:
    return {
        "id": review.pk,
        "reviewer": review.reviewer.get_username(),
        "verdict": review.verdict,
        "note": review.note,
        "score": review.score,
        "created_at": _iso(review.created_at),
        "updated_at": _iso(review.updated_at),
    }


def failing_scores(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The scorer results that pulled a run down: failed or errored (skipped judges count for nothing)."""
    return [s for s in record.get("scores", []) if s.get("outcome") == "errored" or s.get("passed") is False]


def run_passes(record: dict[str, Any], *, min_score: float | None = None) -> bool:
    """Its verdict is pass, and its score reaches --min-score too when one is given."""
    if record.get("status") != Run.Status.DONE or not record.get("passed"):
        return False
    return min_score is None or (record.get("score") is not None and record["score"] >= min_score)


def is_inconclusive(record: dict[str, Any]) -> bool:
    """Nothing could decide the run (an outage, a lost worker, a skipped gating judge): neither passed nor failed."""
    return record.get("verdict") == "inconclusive"


def runs_overview(records: list[dict[str, Any]], *, min_score: float | None = None) -> dict[str, Any]:
    """The summary at the top of every report: counts, pass rate, mean score, total cost and duration."""
    scores = [r["score"] for r in records if r.get("score") is not None]
    costs = [r.get("cost_usd") for r in records if r.get("started_at")]
    passed = sum(run_passes(r, min_score=min_score) for r in records)
    finished = [r for r in records if r.get("status") in Run.FINISHED]
    inconclusive = sum(is_inconclusive(r) for r in finished)
    decided = len(finished) - inconclusive
    return {
        "runs": len(records),
        "passed": passed,
        "failed": decided - passed,
        "inconclusive": inconclusive,
        "errored": sum(r.get("status") == Run.Status.ERROR for r in records),
        "unfinished": len(records) - len(finished),
        # Runs answered from cassettes (runs.cassettes): the pass rate counts them, and every report says so.
        "replayed": sum(bool(r.get("replay")) for r in records),
        # Of the decided runs: an outage counts neither for nor against.
        "pass_rate": passed / decided if decided else None,
        "average_score": sum(scores) / len(scores) if scores else None,
        # One unknown price makes the total unknown: never a partial sum shown as the cost.
        "cost_usd": None if None in costs else round(sum(c for c in costs if c is not None), 6),
        "duration_ms": sum(r.get("duration_ms") or 0 for r in records),
    }
