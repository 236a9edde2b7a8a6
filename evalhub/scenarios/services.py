"""Scenario services that views and the API share."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction

from evalhub.naming import copy_name
from evalhub.scenarios.models import Scenario
from scorers.expectations import InvalidExpectations, validate_expectations


def scenario_duplicate(*, scenario: Scenario, user: AbstractBaseUser | AnonymousUser) -> Scenario:
    tags = list(scenario.tags.all())
    with transaction.atomic():
        copy = Scenario.objects.get(pk=scenario.pk)
        copy.pk = None
        copy.name = copy_name(scenario.name, taken=lambda name: Scenario.objects.filter(name=name).exists())
        copy.created_by = user if user.is_authenticated else None  # type: ignore[assignment]
        copy.save()
        copy.tags.set(tags)
    return copy


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
