"""Picking a model anywhere one is needed: one <select> grouped by provider, values "<provider id>:<model>"."""

from __future__ import annotations

from evalhub.providers.models import Provider, ensure_builtin_providers

Choice = tuple[str, str]


def model_choices() -> list[tuple[str, list[Choice]]]:
    ensure_builtin_providers()
    groups: list[tuple[str, list[Choice]]] = []
    for provider in Provider.objects.all():
        label = f"{provider.name} — rule-based, for smoke tests" if provider.is_offline else provider.name
        groups.append((label, [(model_value(provider, model), model) for model in provider.model_names]))
    return [group for group in groups if group[1]]


def model_value(provider: Provider, model: str) -> str:
    return f"{provider.pk}:{model}"


def parse_model_value(value: str) -> tuple[Provider, str]:
    """The provider and model a choice names; ValueError with a clear message when it names none."""
    provider_id, _, model = value.partition(":")
    provider = Provider.objects.filter(pk=provider_id).first() if provider_id.isdigit() else None
    if provider is None or not model:
        raise ValueError("Choose a model from the list (its provider may have been deleted).")
    return provider, model
