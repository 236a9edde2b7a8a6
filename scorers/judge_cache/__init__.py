"""A judge's verdicts, kept by what decided them: the judge's version (its prompt and labels), its model, and the
exact messages it was sent (the run's transcript as the judge saw it, tool results included, timings not).

Re-scoring a run and scoring its replays (runs.cassettes) ask the same judge the same question: the kept verdict
answers, with no model call and no cost, and the run page says "cached verdict". A new run always asks the judge:
two runs with the same transcript are two samples of the judge, which calibration and trials measure. Only a
verdict (`ok`) is kept: a judge error or an outage is asked again. The verdict effect is none: a cached verdict
counts exactly as the judge's answer did.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from scorers.judge import LabelError, format_labels, parse_labels
from scorers.judge_prompt import build_messages

VERSION = 1


def verdict_key(*, provider: str, model: str, system_prompt: str, labels: str, record: Mapping[str, Any]) -> str | None:
    """The SHA-256 a verdict is kept under; None when the labels are invalid (the judge errors, nothing is kept).
    `provider` names the judge's endpoint (its id and base URL): the same model name elsewhere is another judge."""
    try:
        parsed = parse_labels(labels)
    except LabelError:
        return None
    # PostgreSQL's jsonb gives an object's keys back in its own order: the same run read back for a re-score must
    # give the same key, so the record is put in one order first (the question is the same in any order).
    canonical = json.loads(json.dumps(record, sort_keys=True, ensure_ascii=False, default=str))
    messages = build_messages(system_prompt=system_prompt, labels=parsed, record=canonical)
    key = {"v": VERSION, "provider": provider, "model": model, "labels": format_labels(parsed), "messages": messages}
    return hashlib.sha256(json.dumps(key, ensure_ascii=False, separators=(",", ":")).encode()).hexdigest()
