"""The score step of a run: its scenario's expectations and scorers, or the default scorer when it has neither.

The scenario's expectations, when it has any, are one scorer result ("Expectations": the weighted fraction passed),
with their checklist kept in the result's `details`; it gates when any expectation is `required` (the default) and
fails when one of those failed. Each attached scorer gates at its own threshold (default: the scenario's) unless
attached as advisory. A run's score is the mean of its results' scores (an errored scorer counts as 0, a skipped
judge is left out); its verdict is `runs.run_verdict`'s: a gating scorer that errored or was skipped makes it
inconclusive, never failed. A scenario that injects faults with recovery expectations gets one more gating
result, "Fault recovery" (runs/fault_injection).

The judges gate (`gate_judges`: the run's `judges` setting, else EVALHUB_GATE_JUDGES): under "calibrated", a gating
judge whose calibration (scorers.calibration) is not `calibrated` is advisory for this run: its result is kept and
shown with why, but neither gates nor counts toward the run's score, so it never decides the verdict.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings as django_settings
from django.db import transaction

from runs.cassettes.interposer import REPLAYED_DURATION
from runs.fault_injection.results import recovery_result
from runs.models import Run, ScoreResult
from runs.run_verdict import VERDICT_FIELDS, apply_verdict, tool_call_facts
from runs.snapshots.services import run_snapshots, snapshots_record
from runs.variables import interpolate
from scorers.calibration.services import scorer_calibration
from scorers.calibration.version import expectations_fingerprint, scorer_fingerprint
from scorers.contract import run_facts, scorer_input
from scorers.expectations import InvalidExpectations, evaluate_expectations
from scorers.models import ScenarioScorer, Scorer
from scorers.services import Evaluation, scorer_evaluate


@dataclass(frozen=True)
class DefaultVerdict:
    score: float
    passed: bool
    reason: str


# Levels with no tool to expect: runs/primitives.py.
PRIMITIVE_LEVELS = ("resource", "prompt")


def default_verdict(
    *, expected_tools: list[str], called: list[str], failed_calls: int = 0, tool_errors_expected: bool = False
) -> DefaultVerdict:
    """With expected tools: the fraction of them called at least once; without: 1 if any tool was called. It
    passes only when every expected tool was called and, unless tool errors are expected, no tool call failed;
    the score is then scaled by the share of calls that succeeded."""
    wanted = list(dict.fromkeys(expected_tools))
    missing = [name for name in wanted if name not in called]
    if wanted:
        score = (len(wanted) - len(missing)) / len(wanted)
        if missing:
            reason = f"never called {', '.join(missing)} ({len(wanted) - len(missing)} of {len(wanted)} called)"
        else:
            reason = f"all expected tools were called: {', '.join(wanted)}"
    elif called:
        score, reason = 1.0, f"tools were called: {', '.join(dict.fromkeys(called))}"
    else:
        score, reason = 0.0, "called no tool (no expected tools were set, so any tool call would pass)"
    passed = score > 0 and not missing
    if failed_calls and not tool_errors_expected:
        score *= (len(called) - failed_calls) / len(called)
        passed = False
        reason += f"; {failed_calls} of {len(called)} tool calls returned an error"
    elif failed_calls:
        reason += f"; {failed_calls} of {len(called)} tool calls returned an error, as the scenario expects"
    return DefaultVerdict(score, passed, reason[0].upper() + reason[1:] + ".")


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
            # A replay is scored on the recorded run's time (runs.cassettes): it answered in none.
            duration_ms=run.settings.get(REPLAYED_DURATION, run.duration_ms),
            turns=len(run.model_calls),
            input_tokens=run.input_tokens,
            output_tokens=run.output_tokens,
            cost_usd=run.cost_usd,
            tool_mode=run.settings.get("tool_mode") or "direct",
        ),
    )


def gate_judges(run: Run) -> str:
    """Which gating judges may decide the run's verdict: "all", or only "calibrated" ones. The run's own choice
    (its experiment's, or the CLI's `--judges`), else the site's EVALHUB_GATE_JUDGES."""
    return str(run.settings.get("judges") or django_settings.EVALHUB_GATE_JUDGES)


def _uncalibrated_judges(run: Run, attachments: list[ScenarioScorer]) -> dict[int, str]:
    """The gating judges the gate makes advisory, with their calibration status; none unless it asks for
    calibrated judges."""
    if gate_judges(run) != "calibrated":
        return {}
    statuses = {
        a.scorer_id: scorer_calibration(scorer=a.scorer).status
        for a in attachments
        if a.scorer.kind == Scorer.Kind.JUDGE and not a.advisory
    }
    return {scorer_id: status for scorer_id, status in statuses.items() if status != "calibrated"}


def _result(run: Run, attachment: ScenarioScorer, evaluation: Evaluation, *, uncalibrated: str = "") -> ScoreResult:
    """`uncalibrated`: the judge's calibration status when the gate makes it advisory for not being calibrated."""
    scorer = attachment.scorer
    threshold = attachment.threshold if attachment.threshold is not None else run.threshold
    judge = evaluation.judge
    details: dict[str, object] | None = None
    if judge:
        # The model under test grading its own answers: shown on the run, its cell and its reports.
        self_judging = run.provider is not None and judge == {"provider": run.provider.name, "model": run.model}
        details = {"judge": judge, "self_judging": self_judging}
        if evaluation.cached:
            # The run page says "cached verdict": the judge was not asked again (scorers.judge_cache).
            details["cached"] = True
        if uncalibrated:
            # Shown, never deciding: pages and reports say why this judge's verdict did not count.
            details["advisory_because"] = f"the judge is {uncalibrated}, and only calibrated judges gate this run"
            details["calibration"] = uncalibrated
    judge_model = judge["model"] if judge else ""
    return ScoreResult(
        run=run,
        scorer=scorer,
        scorer_name=scorer.name,
        scorer_kind=scorer.kind,
        scorer_version=scorer.version,
        fingerprint=scorer_fingerprint(
            kind=scorer.kind,
            code=scorer.code,
            system_prompt=scorer.system_prompt,
            labels=scorer.labels,
            judge_model=judge_model,
        ),
        judge_model=judge_model,
        score=evaluation.score,
        passed=None if evaluation.outcome != "ok" or evaluation.score is None else evaluation.score >= threshold,
        gating=not attachment.advisory and not uncalibrated,
        threshold=threshold,
        reason=evaluation.reason,
        label=evaluation.label,
        console=evaluation.console,
        duration_ms=evaluation.duration_ms,
        error=evaluation.error,
        outcome=evaluation.outcome,
        input_tokens=evaluation.input_tokens,
        output_tokens=evaluation.output_tokens,
        cost_usd=evaluation.cost_usd,
        details=details,
    )


EXPECTATIONS = "Expectations"


def _expectations_result(run: Run, record: dict[str, Any]) -> ScoreResult:
    """The scenario's expectations checked against the run, as one result whose `details` is the checklist."""
    started = time.perf_counter()
    result = ScoreResult(
        run=run,
        scorer_name=EXPECTATIONS,
        scorer_kind="expectations",
        fingerprint=expectations_fingerprint(run.scenario.expectations),
    )
    try:
        # With the values its variables had when the run started (runs/variables.py).
        expectations = interpolate(run.scenario.expectations, (run.settings or {}).get("variable_values") or {})
        checked = evaluate_expectations(expectations, record, snapshots=run_snapshots(run))
    except InvalidExpectations as exc:
        # Saved lists are validated, so this means the engine's rules changed since: say what to fix, count 0; the
        # run is then inconclusive (runs.verdict): an invalid check says nothing about the agent.
        result.score, result.passed, result.outcome = 0.0, None, "errored"
        result.reason = "The scenario's expectations are invalid, so they count as 0: fix them on its form."
        result.error = "\n".join(exc.errors)
    else:
        result.score, result.passed = checked.score, not checked.required_failed
        # Only score-only expectations ("required": false): the result counts toward the score and gates nothing.
        result.gating = any(outcome.required for outcome in checked.outcomes)
        result.reason, result.details = checked.reason, checked.to_dict()
    result.duration_ms = round((time.perf_counter() - started) * 1000)
    return result


def _default_result(run: Run) -> ScoreResult:
    if run.settings.get("level") in PRIMITIVE_LEVELS:
        # A failed read or get ended the run in an error (the server's): reaching here, it succeeded.
        what = "resource read" if run.settings["level"] == "resource" else "prompt get"
        return ScoreResult(
            run=run,
            scorer_name="Default scorer",
            scorer_kind="default",
            score=1.0,
            passed=True,
            reason=f"The {what} succeeded.",
        )
    calls = tool_call_facts(run.all_tool_calls, None)
    verdict = default_verdict(
        expected_tools=run.settings.get("expected_tools") or [],
        called=[call.tool for call in calls],
        # A call an injected fault failed is not the tool's error (runs/fault_injection).
        failed_calls=sum(call.failed_by not in (None, "fault") for call in calls),
        tool_errors_expected=bool(run.settings.get("tool_errors_expected")),
    )
    return ScoreResult(
        run=run,
        scorer_name="Default scorer",
        scorer_kind="default",
        score=verdict.score,
        passed=verdict.passed,
        reason=verdict.reason,
    )


def score_run(run: Run, *, finishing: tuple[str, ...] = (), rescoring: bool = False) -> bool:
    """Score a run with its scenario's current scorers; earlier results stay, marked not current.

    `finishing` names the fields of the running run's final state (the worker sets them on `run`): they are
    written together with the score, in one commit, and only if the run is still running. The worker thus marks a
    run done only with its score, and a run closed as lost while it was being scored stays so (returns False and
    saves nothing).

    A re-score (`rescoring`) or a replay asks its judges the question they answered before: their kept verdicts
    answer (scorers.judge_cache); a new run asks them again.
    """
    attachments = list(
        ScenarioScorer.objects.filter(scenario=run.scenario)
        .select_related("scorer__judge_provider")
        .order_by("scorer__name")
    )
    results: list[ScoreResult] = []
    if attachments or run.scenario.expectations:
        record = run_record(run)
        reuse_verdicts = rescoring or run.replay_of_id is not None
        if run.scenario.expectations:
            results.append(_expectations_result(run, record))
        uncalibrated = _uncalibrated_judges(run, attachments)
        results += [
            _result(
                run,
                a,
                scorer_evaluate(content=a.scorer, record=record, reuse_verdicts=reuse_verdicts),
                uncalibrated=uncalibrated.get(a.scorer_id, ""),
            )
            for a in attachments
        ]
    else:
        results = [_default_result(run)]
    # The scenario's recovery expectations, when it injects faults (runs/fault_injection): one more gating check.
    if (recovery := recovery_result(run)) is not None:
        results.append(recovery)
    # A judge the gate made advisory is shown but never decides: its score stays on its result, out of the run's
    # (else a low score from a judge nobody trusts would fail the run through the threshold).
    counted = [
        result for result in results if result.score is not None and not (result.details or {}).get("advisory_because")
    ]
    if counted:
        run.score = sum(result.score or 0.0 for result in counted) / len(counted)
        run.score_reason = (
            results[0].reason
            if len(results) == 1
            else " ".join(f"{r.scorer_name}: {r.reason or r.error}" for r in results)
        )
    else:
        run.score = None
        run.score_reason = "Every scorer was skipped or advisory, so the run has no score."
    apply_verdict(run, results)
    scored = ("score", "score_reason", *VERDICT_FIELDS)
    with transaction.atomic():
        # The conditional UPDATE comes first: it locks the row, so the reaper waits for this commit or wins before.
        if finishing and not run.save_if_running([*scored, *finishing]):
            return False
        if not finishing:
            run.save(update_fields=scored)
            # A run being finished has never been scored: it has no current results to retire.
            run.score_results.filter(is_current=True).update(is_current=False)
        ScoreResult.objects.bulk_create(results)
        if finishing and results[0].scorer_kind == "expectations":
            # Only a run's first scoring stores snapshots: re-scoring an old run must not re-record its values.
            snapshots_record(run=run, seen=(results[0].details or {}).get("snapshots", []))
    return True
