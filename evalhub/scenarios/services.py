"""Scenario services that views and the API share."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction

from evalhub.naming import copy_name
from evalhub.scenarios.models import Scenario


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
