"""Runs of shipped evals as the evals/list proposal's `EvalResult` objects (reference 000), field for field:
`{evalId, passed, reason?, durationMs}`. Results stay with the client; nothing is sent to the server.

Runs of scenarios that did not come from a shipped eval have no evalId and are left out. A run that was not graded
(errored, cancelled, or only skipped judges) did not pass, and its reason says why.
"""

from __future__ import annotations

import json
from typing import Any


def eval_results(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [_eval_result(record) for record in records if (record.get("settings") or {}).get("shipped_eval_id")]


def _eval_result(record: dict[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "evalId": record["settings"]["shipped_eval_id"],
        "passed": record.get("passed") is True,
        "durationMs": record.get("duration_ms") or 0,
    }
    if reason := _reason(record):
        result["reason"] = reason
    return result


def _reason(record: dict[str, Any]) -> str:
    if record.get("failure_reason"):
        # "server: get_weather returned an error on 3 of 3 calls", "provider: 429 …" (inconclusive, not passed)
        verdict = record.get("verdict")
        return f"{verdict}: {record['failure_reason']}" if verdict == "inconclusive" else record["failure_reason"]
    error = record.get("error") or {}
    if error:
        return f"The run failed at {error.get('step', 'a step')}: {error.get('message', '')}".strip()
    if record.get("status") != "done":
        return f"The run did not finish ({record.get('status')})."
    judged = [score["reason"] for score in record.get("scores", []) if score.get("scorer_kind") == "judge"]
    return " ".join(reason for reason in judged if reason) or record.get("score_reason") or ""


def to_evalresult(records: list[dict[str, Any]]) -> str:
    return json.dumps(eval_results(records), indent=2)
