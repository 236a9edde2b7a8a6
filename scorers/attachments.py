"""Which scorers a scenario has, and how each counts: gating at its own threshold (default: the scenario's), or
advisory (shown and counted in the score, never failing a run). The form, the API, suites and duplicates all
attach through `attach_scorers`."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from django.db import transaction

from evalhub.scenarios.models import Scenario
from scorers.models import ScenarioScorer, Scorer

# `thresholds` left out: the attachments keep the thresholds they have (a form without threshold fields).
KEEP = None


def attach_scorers(
    *,
    scenario: Scenario,
    scorers: Iterable[Scorer],
    advisory: Collection[int] = (),
    thresholds: Mapping[int, float | None] | None = KEEP,
) -> None:
    """Make `scorers` the scenario's scorers; those whose id is in `advisory` are advisory, the rest gating."""
    chosen = {scorer.pk: scorer for scorer in scorers}
    with transaction.atomic():
        ScenarioScorer.objects.filter(scenario=scenario).exclude(scorer_id__in=chosen).delete()
        existing = {a.scorer_id: a for a in ScenarioScorer.objects.filter(scenario=scenario)}
        for scorer_id, scorer in chosen.items():
            attachment = existing.get(scorer_id) or ScenarioScorer(scenario=scenario, scorer=scorer)
            attachment.advisory = scorer_id in advisory
            if thresholds is not None:
                attachment.threshold = thresholds.get(scorer_id)
            attachment.save()


def attachments_of(scenario: Scenario) -> list[ScenarioScorer]:
    return list(ScenarioScorer.objects.filter(scenario=scenario).select_related("scorer").order_by("scorer__name"))
