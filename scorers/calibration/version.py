"""A scorer's fingerprint: a stable hash of everything that defines how it scores. Pure: no Django.

A code scorer is its code; a judge is its system prompt, its labels and the judge model that answered (the default
judge model from Settings counts as whichever model that was); a scenario's expectations are their spec. Two
results with the same fingerprint were scored the same way, so people's reviews of one vouch for the other; a
change of any part makes a new fingerprint, and the reviews of the old one stop vouching for the scorer (`stale`).

The integer `Scorer.version` counts saves; the fingerprint also changes when nothing was saved (the site's default
judge model was switched) and stays when a save changed nothing that scores (a restore of the same content).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

# Long enough that two behaviours never share one by chance; short enough to show and to index.
LENGTH = 16


def _digest(parts: dict[str, Any]) -> str:
    text = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:LENGTH]


def scorer_fingerprint(*, kind: str, code: str, system_prompt: str, labels: str, judge_model: str) -> str:
    """The fingerprint of a code scorer (its code) or a judge (prompt, labels and the model that judges).

    Line endings are made plain first: the same text pasted from a browser (`\\r\\n`) scores the same.
    """

    def plain(text: str) -> str:
        return text.replace("\r\n", "\n").replace("\r", "\n")

    if kind == "code":
        return _digest({"kind": "code", "code": plain(code)})
    return _digest(
        {"kind": kind, "system_prompt": plain(system_prompt), "labels": plain(labels), "judge_model": judge_model}
    )


def expectations_fingerprint(spec: Any) -> str:
    """The fingerprint of a scenario's expectations: their spec, whatever the order of each object's keys."""
    return _digest({"kind": "expectations", "spec": spec})
