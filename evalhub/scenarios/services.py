"""Scenario services that views and the API share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction

from evalhub.naming import copy_name
from evalhub.scenarios.models import Scenario
from scorers.attachments import attach_scorers, attachments_of
from scorers.expectations import InvalidExpectations, validate_expectations


def scenario_duplicate(*, scenario: Scenario, user: AbstractBaseUser | AnonymousUser) -> Scenario:
    """Copy everything that defines the scenario (its fields, tags and attached scorers), not its runs."""
    tags = list(scenario.tags.all())
    attachments = attachments_of(scenario)
    with transaction.atomic():
        copy = Scenario.objects.get(pk=scenario.pk)
        copy.pk = None
        copy.name = copy_name(scenario.name, taken=lambda name: Scenario.objects.filter(name=name).exists())
        copy.created_by = user if user.is_authenticated else None  # type: ignore[assignment]
        # A copy is the user's own: only the original stays linked to the eval its server ships.
        copy.shipped_eval_id, copy.shipped_eval, copy.shipped_eval_removed_at = "", None, None
        copy.save()
        copy.tags.set(tags)
        attach_scorers(
            scenario=copy,
            scorers=[a.scorer for a in attachments],
            advisory={a.scorer_id for a in attachments if a.advisory},
            thresholds={a.scorer_id: a.threshold for a in attachments},
        )
    return copy


def scenario_copied_parts(scenario: Scenario) -> str:
    """What a duplicate took along, for the success message, e.g. "the prompt, model and limits, 2 scorers
    (Weather called, Helpful judge), tags smoke and weather, 3 expectations and the expected tools"."""
    parts = ["the prompt, model and limits"]
    scorers = [scorer.name for scorer in scenario.scorers.order_by("name")]
    parts.append(f"{_count(len(scorers), 'scorer')} ({', '.join(scorers)})" if scorers else "no scorers")
    tags = [tag.name for tag in scenario.tags.order_by("name")]
    if tags:
        parts.append(f"tag{'s' if len(tags) > 1 else ''} {_and(tags)}")
    if scenario.expectations:
        parts.append(_count(len(scenario.expectations), "expectation"))
    budgets = [name for name, value in (("token", scenario.token_budget), ("cost", scenario.cost_budget_usd)) if value]
    if budgets:
        parts.append(f"the {_and(budgets)} budget{'s' if len(budgets) > 1 else ''}")
    if scenario.expected_tools:
        parts.append("the expected tools")
    if scenario.expected is not None:
        parts.append("the expected JSON")
    if scenario.conversation:
        parts.append("the conversation")
    if scenario.fault_injection:
        parts.append("the fault injection")
    return _and(parts)


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def scenario_add_expectations(
    *, scenario: Scenario, expectations: Sequence[Mapping[str, Any]], replace: bool = False
) -> Scenario:
    """Add expectations to the scenario's own (or replace them); raises InvalidExpectations and saves nothing when
    the resulting list is invalid. Locks the row: two people saving from two runs must not lose one's additions."""
    with transaction.atomic():
        current = Scenario.objects.select_for_update().get(pk=scenario.pk)
        combined = [dict(item) for item in expectations]
        if not replace:
            combined = [*current.expectations, *(item for item in combined if item not in current.expectations)]
        errors = validate_expectations(combined)
        if errors:
            raise InvalidExpectations(errors)
        current.expectations = combined
        current.save(update_fields=["expectations", "updated_at"])
    return current
