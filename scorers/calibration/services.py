"""Calibration of scorers against people: per fingerprint (scorer version and judge model), over the runs it scored
that people reviewed.

A pair is (the scorer's verdict on a run, the run's human verdict, runs.reviews): only results that decided (ok,
passed or failed) and runs people reviewed count; when a run was scored more than once the same way, its latest
result counts. Results kept before fingerprints were recorded have none and count for no version. A scorer's status
is that of its current fingerprint (scorers.calibration.status); the runs where it and people disagree are listed
so a person can read why.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from evalhub.scenarios.models import Scenario
from runs.models import ScoreResult
from scorers.calibration.stats import Agreement, agreement_of
from scorers.calibration.status import calibration_status
from scorers.calibration.version import expectations_fingerprint, scorer_fingerprint
from scorers.models import Scorer
from scorers.services import ScorerContent, judge_target

HUMAN_VERDICTS = ("pass", "fail")


@dataclass(frozen=True)
class Calibration:
    """One fingerprint's agreement with people, and the status it gives the scorer."""

    fingerprint: str
    judge_model: str
    figures: Agreement
    status: str
    # The scorer's saved versions that scored this way (a judge on the default judge model may span several).
    versions: tuple[int, ...] = ()
    # Runs the scorer passed and people failed, and runs it failed and people passed (newest first).
    false_passes: tuple[int, ...] = ()
    false_fails: tuple[int, ...] = ()
    current: bool = False

    @property
    def reviewed(self) -> int:
        return self.figures.reviewed

    @property
    def summary(self) -> str:
        """One line for pickers and badges' titles: "calibrated · κ 0.82 over 24 reviewed runs"."""
        figures, needed = self.figures, settings.EVALHUB_CALIBRATION_MIN_REVIEWS
        if self.status == "stale":
            return f"stale · changed since its reviews; {figures.reviewed} of {needed} reviewed runs for this version"
        if self.status == "uncalibrated":
            return f"uncalibrated · {figures.reviewed} of {needed} reviewed runs"
        kappa = "undefined" if figures.kappa is None else f"{figures.kappa:.2f}"
        return f"{self.status} · κ {kappa} over {figures.reviewed} reviewed runs"

    @property
    def disagreeing(self) -> tuple[int, ...]:
        return tuple(sorted((*self.false_passes, *self.false_fails), reverse=True))

    def to_api(self) -> dict[str, Any]:
        return {
            **self.figures.to_dict(),
            "status": self.status,
            "version": self.fingerprint,
            "judge_model": self.judge_model,
        }


@dataclass(frozen=True)
class ScorerCalibration:
    """The current fingerprint's calibration (what the status and the gate read), and every older one's."""

    current: Calibration
    older: list[Calibration] = field(default_factory=list)

    @property
    def status(self) -> str:
        return self.current.status


@dataclass
class _Group:
    judge_model: str = ""
    versions: set[int] = field(default_factory=set)
    # run id → (the scorer passed, people passed), the run's latest result of this fingerprint winning.
    pairs: dict[int, tuple[bool, bool]] = field(default_factory=dict)


def current_fingerprint(content: ScorerContent) -> tuple[str, str]:
    """The fingerprint a scorer (or a draft) would score with now, and its judge model ("" for code)."""
    judge_model = judge_target(content)[1] if content.kind == Scorer.Kind.JUDGE else ""
    fingerprint = scorer_fingerprint(
        kind=content.kind,
        code=content.code,
        system_prompt=content.system_prompt,
        labels=content.labels,
        judge_model=judge_model,
    )
    return fingerprint, judge_model


def _groups(results: Any) -> dict[str, _Group]:
    groups: dict[str, _Group] = defaultdict(_Group)
    rows = (
        results.filter(outcome="ok", passed__isnull=False, run__human_verdict__in=HUMAN_VERDICTS)
        .exclude(fingerprint="")
        .order_by("created_at", "id")
        .values_list("run_id", "fingerprint", "judge_model", "scorer_version", "passed", "run__human_verdict")
    )
    for run_id, fingerprint, judge_model, version, passed, human in rows:
        group = groups[fingerprint]
        group.judge_model = judge_model
        if version is not None:
            group.versions.add(version)
        group.pairs[run_id] = (bool(passed), human == "pass")
    return groups


def _calibrate(fingerprint: str, group: _Group, *, older_reviewed: int, current: bool) -> Calibration:
    figures = agreement_of(group.pairs.values())
    # An older version is judged on its own reviews (was it calibrated while it was the scorer?): older_reviewed=0.
    status = calibration_status(
        reviewed=figures.reviewed,
        kappa=figures.kappa,
        older_reviewed=older_reviewed,
        min_reviews=settings.EVALHUB_CALIBRATION_MIN_REVIEWS,
        min_kappa=settings.EVALHUB_CALIBRATION_MIN_KAPPA,
    )
    by_run = sorted(group.pairs.items(), reverse=True)
    return Calibration(
        fingerprint=fingerprint,
        judge_model=group.judge_model,
        figures=figures,
        status=status,
        versions=tuple(sorted(group.versions)),
        false_passes=tuple(run for run, (scorer, people) in by_run if scorer and not people),
        false_fails=tuple(run for run, (scorer, people) in by_run if people and not scorer),
        current=current,
    )


def _calibration(results: Any, fingerprint: str, judge_model: str) -> ScorerCalibration:
    groups = _groups(results)
    current_group = groups.pop(fingerprint, _Group(judge_model=judge_model))
    current_group.judge_model = judge_model
    older = [_calibrate(fp, group, older_reviewed=0, current=False) for fp, group in groups.items()]
    older.sort(key=lambda c: max(c.versions, default=0), reverse=True)
    older_reviewed = max((c.reviewed for c in older), default=0)
    return ScorerCalibration(
        current=_calibrate(fingerprint, current_group, older_reviewed=older_reviewed, current=True), older=older
    )


def scorer_calibration(*, scorer: Scorer) -> ScorerCalibration:
    """How the scorer, as it is now, agrees with people; and how each of its earlier fingerprints did."""
    fingerprint, judge_model = current_fingerprint(scorer)
    return _calibration(ScoreResult.objects.filter(scorer=scorer), fingerprint, judge_model)


def expectations_calibration(*, scenario: Scenario) -> ScorerCalibration | None:
    """How a scenario's expectations, as a whole, agree with people; None when it has none."""
    if not scenario.expectations:
        return None
    results = ScoreResult.objects.filter(run__scenario=scenario, scorer_kind="expectations")
    return _calibration(results, expectations_fingerprint(scenario.expectations), "")


def scorer_summaries(*, scorers: Sequence[Scorer]) -> dict[int, Calibration]:
    """Each scorer's current calibration, by id: what pickers and the run page show beside each judge."""
    return {scorer.pk: scorer_calibration(scorer=scorer).current for scorer in scorers}
