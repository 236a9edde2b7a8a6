"""Picking a model anywhere one is needed: one <select> grouped by provider, values "<provider id>:<model>"."""

from __future__ import annotations

from evalhub.ids import parse_id
from evalhub.providers.models import Provider, ensure_builtin_providers

Choice = tuple[str, str]


def model_choices(*, judging: bool = False) -> list[tuple[str, list[Choice]]]:
    """Every provider's models, grouped by provider. Each option names its provider too (a closed <select> shows
    only the option); when a provider's last Test failed, its group and the option of the model it tried say so.
    `judging` leaves out the offline model: it cannot grade a transcript, so a judge on it would only ever be
    skipped."""
    ensure_builtin_providers()
    groups: list[tuple[str, list[Choice]]] = []
    for provider in Provider.objects.all():
        if judging and provider.is_offline:
            continue
        failed = provider_test_failed(provider)
        # A test tries one model: only that model's option says it failed, the group says which one it was.
        tested = str((provider.last_test or {}).get("model") or "") if failed else ""
        label = f"{provider.name} — rule-based, for smoke tests" if provider.is_offline else provider.name
        warning = f" — last test ({tested}) failed ({failed})" if failed else ""
        options = [
            (
                model_value(provider, model),
                f"{model} · {provider.name}{' · last test failed' if model == tested else ''}",
            )
            for model in provider.model_names
        ]
        groups.append((label + warning, options))
    return [group for group in groups if group[1]]


def provider_test_failed(provider: Provider) -> str:
    """The kind of failure of the provider's last Test ("" when it passed, is running or never ran)."""
    last = provider.last_test or {}
    return str(last.get("kind") or "error") if last.get("ok") is False else ""


def model_value(provider: Provider, model: str) -> str:
    return f"{provider.pk}:{model}"


def parse_model_value(value: str) -> tuple[Provider, str]:
    """The provider and model a choice names; ValueError with a clear message when it names none."""
    provider_id, _, model = value.partition(":")
    provider_pk = parse_id(provider_id)
    provider = Provider.objects.filter(pk=provider_pk).first() if provider_pk is not None else None
    if provider is None or not model:
        raise ValueError("Choose a model from the list (its provider may have been deleted).")
    return provider, model
