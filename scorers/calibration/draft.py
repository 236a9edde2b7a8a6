"""*Test scorer* against people's reviews: a draft (unsaved code or judge) scored on reviewed runs, and how far it
agrees with them, before it is saved. Nothing is stored.

The runs are the latest reviewed ones (done, with a human verdict) of the scenarios the scorer is attached to, or
of any scenario when it is attached to none, at most `DRAFT_RUNS`: each is scored in the web request (a judge asks
its model once per run), so the sample stays small. A run's verdict from the draft is its score against the run's
own pass threshold; a skipped or errored evaluation is counted apart and left out of the figures.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from runs.models import Run
from runs.scoring import run_record
from scorers.calibration.services import HUMAN_VERDICTS
from scorers.calibration.stats import Agreement, agreement_of
from scorers.models import Scorer
from scorers.services import ScorerContent, scorer_evaluate

DRAFT_RUNS = 20


@dataclass(frozen=True)
class DraftTest:
    figures: Agreement
    false_passes: list[Run] = field(default_factory=list)
    false_fails: list[Run] = field(default_factory=list)
    undecided: int = 0  # evaluations that were skipped or errored


def reviewed_runs(*, scorer: Scorer | None, limit: int = DRAFT_RUNS) -> list[Run]:
    runs = Run.objects.filter(status=Run.Status.DONE, human_verdict__in=HUMAN_VERDICTS).select_related("scenario")
    if scorer is not None and scorer.pk is not None and scorer.scenarios.exists():
        runs = runs.filter(scenario__in=scorer.scenarios.all())
    return list(runs.order_by("-created_at", "-id")[:limit])


def draft_test(*, content: ScorerContent, runs: list[Run]) -> DraftTest:
    """Score each run with the draft and compare its verdicts with people's."""
    pairs: list[tuple[bool, bool]] = []
    false_passes: list[Run] = []
    false_fails: list[Run] = []
    undecided = 0
    for run in runs:
        evaluation = scorer_evaluate(content=content, record=run_record(run))
        if evaluation.outcome != "ok" or evaluation.score is None:
            undecided += 1
            continue
        passed, people = evaluation.score >= run.threshold, run.human_verdict == "pass"
        pairs.append((passed, people))
        if passed and not people:
            false_passes.append(run)
        elif people and not passed:
            false_fails.append(run)
    return DraftTest(agreement_of(pairs), false_passes, false_fails, undecided)
