"""The verdict badge every page shows for a run: "pass 0.92", "fail 0.40 · server", "inconclusive · provider".

Pages only read the stored verdict (runs.run_verdict sets it); an inconclusive run is never drawn as a failure,
and the failure reason (which may quote tool or model text) reaches the page only through the template's escaping.
"""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()

# Inconclusive is amber: nothing failed, something outside the agent and the server kept the run from deciding.
_CSS = {"pass": "badge-pass", "fail": "badge-fail", "inconclusive": "badge-warn"}


# What each stage of runs.verdict.STAGES checks, as the run page explains it.
STAGE_MEANINGS = {
    "connected": "EvalHub started or reached the server",
    "tools listed": "the server listed its tools",
    "tool chosen": "the model answered and picked a tool",
    "tool called": "the call was accepted: a known tool, arguments its schema allows",
    "result returned": "the tool answered without an error",
    "request satisfied": "every gating check passed and the score reached the threshold",
}


@register.filter
def stage_meaning(stage: str) -> str:
    return STAGE_MEANINGS.get(stage, "")


@register.inclusion_tag("runs/_verdict_badge.html")
def verdict_badge(
    run: Any = None,
    *,
    verdict: str | None = None,
    score: float | None = None,
    cause: str = "",
    reason: str = "",
    threshold: float | None = None,
) -> dict[str, Any]:
    """A run's badge, from `run` or from its fields (a list that annotated them, e.g. a scenario's last verdict)."""
    if run is not None:
        verdict, score, cause = run.verdict, run.score, run.failure_cause
        reason, threshold = run.failure_reason, run.threshold
    verdict = verdict or ""
    if verdict == "pass":
        title = "Passed: every gating check passed" + (f" and the score reached {threshold}" if threshold else "")
    else:
        title = reason
    return {
        "verdict": verdict,
        "css": _CSS.get(verdict, ""),
        # An inconclusive run's score decided nothing: it is left off its badge.
        "score": score if verdict != "inconclusive" else None,
        "cause": cause if verdict != "pass" else "",
        "title": title,
    }
