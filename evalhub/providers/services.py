"""Services of Settings → Providers: test a provider, delete one, and say what each of its models costs.

The HTML views and the API call these; none of them ever returns or logs a secret.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone

from evalhub import background, vault
from evalhub.model_client import ProviderError, RetryPolicy, TokenUsage, price_call, test_provider
from evalhub.providers.models import Provider
from evalhub.vault import SecretUnavailable

# One attempt: the button answers "does this work now?", and four retries with backoff would keep the user
# waiting minutes for an answer the first attempt already gave.
TEST_RETRY = RetryPolicy(max_attempts=1)
# How long past the provider's timeout a test counts as running: recording it takes a moment too.
TEST_GRACE_SECONDS = 10.0

# Priced on a small call and scaled up: a million-token call would land in the long-context tier that some
# models charge more for (Gemini, Claude), and show the wrong list price.
_SAMPLE_TOKENS = 1_000
_SCALE = Decimal(1_000_000 // _SAMPLE_TOKENS)


class ProviderNotDeletable(Exception):
    """Deleting the provider would break something; the message says what and what to do."""


@dataclass(frozen=True)
class ModelPriceInfo:
    """What one model costs, in USD per million tokens, and where that price comes from."""

    source: str  # "override", "genai-prices", "free" or "unknown"
    input_per_mtok: Decimal | None = None
    output_per_mtok: Decimal | None = None

    @property
    def is_known(self) -> bool:
        return self.input_per_mtok is not None and self.output_per_mtok is not None

    @property
    def text(self) -> str:
        if self.source == "free":
            return "free"
        if self.input_per_mtok is None or self.output_per_mtok is None:
            return "unknown"
        return f"{_usd(self.input_per_mtok)} in / {_usd(self.output_per_mtok)} out"


def model_price(*, provider: Provider, model: str) -> ModelPriceInfo:
    """The price EvalHub will charge a call to `model` on `provider`: the user's override, else genai-prices for
    the provider's host, else unknown (never a guess; see evalhub.model_client.pricing)."""
    usage = TokenUsage(input_tokens=_SAMPLE_TOKENS, output_tokens=_SAMPLE_TOKENS)
    cost = price_call(model=model, usage=usage, base_url=provider.base_url, overrides=provider.model_prices())
    if cost.source == "free":
        return ModelPriceInfo("free", Decimal(0), Decimal(0))
    if cost.input_usd is None or cost.output_usd is None:
        return ModelPriceInfo("unknown")
    return ModelPriceInfo(cost.source, _per_mtok(cost.input_usd), _per_mtok(cost.output_usd))


def provider_test_in_background(
    *, provider: Provider, model: str, wait: float, user: AbstractBaseUser | AnonymousUser
) -> dict[str, Any]:
    """Send a one-token request to `model` on the web process's background pool, waiting at most `wait` seconds.

    The outcome is kept on the provider (`last_test`) and returned: `{"ok": True, "model", "at", "latency_ms"}`
    or `{"ok": False, "model", "at", "kind", "message"}`; while the request goes on (at most the provider's
    timeout), `{"pending": True, "model", "at", "until"}`, and the pool thread records the outcome when it ends. A
    test already running for this provider is not started twice. Raises background.Busy when the pool, or
    `user`'s share of it, is full.
    """
    started = timezone.now()
    until = started + timedelta(seconds=provider.timeout + TEST_GRACE_SECONDS)
    pending = {"pending": True, "model": model, "at": started.isoformat(), "until": until.isoformat()}
    # Claim it atomically: two clicks, or two web processes, must not test the same provider at once.
    with transaction.atomic():
        locked = Provider.objects.select_for_update().get(pk=provider.pk)
        previous = locked.last_test
        if test_is_pending(previous):
            provider.last_test = previous
            return dict(previous or {})
        Provider.objects.filter(pk=provider.pk).update(last_test=pending)
    provider.last_test = pending
    provider_id = provider.pk

    def record_late(outcome: background.Outcome[dict[str, Any]]) -> None:
        current = Provider.objects.filter(pk=provider_id).first()
        if current is not None:
            _record_test(current, outcome.get())

    try:
        outcome = background.run_bounded(
            lambda: _test(provider, model, started), wait=wait, late=record_late, owner=user.pk
        )
    except background.Busy:
        Provider.objects.filter(pk=provider_id).update(last_test=previous)
        provider.last_test = previous
        raise
    return pending if outcome is None else _record_test(provider, outcome.get())


def test_is_pending(last_test: dict[str, Any] | None) -> bool:
    """Whether a test is running now; a pending one past its end was cut off by a stopped web process."""
    if not last_test or not last_test.get("pending"):
        return False
    return timezone.now() < datetime.fromisoformat(last_test["until"])


def _test(provider: Provider, model: str, started: datetime) -> dict[str, Any]:
    result: dict[str, Any]
    try:
        config = replace(provider.to_config(), retry=TEST_RETRY)
        latency_ms = test_provider(config, model)
    except ProviderError as error:
        # The message is written for users and already redacted of the key and secret headers.
        result = {"ok": False, "kind": error.kind.value, "message": error.message}
    except SecretUnavailable as error:
        result = {"ok": False, "kind": "secret_unavailable", "message": str(error)}
    else:
        result = {"ok": True, "latency_ms": round(latency_ms)}
    result.update(model=model, at=started.isoformat())
    return result


def _record_test(provider: Provider, result: dict[str, Any]) -> dict[str, Any]:
    provider.last_test = result
    provider.save(update_fields=["last_test"])
    return result


def provider_delete(*, provider: Provider) -> None:
    """Delete a provider nothing depends on. Runs keep their history (their provider becomes empty); LLM judges
    and the Settings choices that used it fall back to their defaults."""
    reason = provider_delete_blocker(provider=provider)
    if reason:
        raise ProviderNotDeletable(reason)
    try:
        provider.delete()
    except ProtectedError:
        # A scenario started using it since we looked.
        raise ProviderNotDeletable(provider_delete_blocker(provider=provider) or "It is in use.") from None


def provider_delete_blocker(*, provider: Provider) -> str | None:
    """Why the provider cannot be deleted, or None when it can."""
    if provider.is_offline and provider.is_builtin:
        return f"“{provider.name}” is the built-in offline model; it cannot be deleted."
    if provider.is_builtin:
        return (
            f"“{provider.name}” comes from OPENAI_API_KEY in the environment and would come back; "
            "unset the variable to remove it."
        )
    names = provider_scenario_names(provider=provider)
    if not names:
        return None
    shown = ", ".join(f"“{name}”" for name in names[:5])
    more = f" and {len(names) - 5} more" if len(names) > 5 else ""
    noun = "scenario" if len(names) == 1 else "scenarios"
    verb = "uses" if len(names) == 1 else "use"
    return (
        f"“{provider.name}” cannot be deleted: {noun} {shown}{more} {verb} it. "
        "Give them another model first, or delete them."
    )


def provider_scenario_names(*, provider: Provider) -> list[str]:
    return list(provider.scenarios.order_by("name").values_list("name", flat=True))


def api_key_status(provider: Provider) -> str:
    """How the Providers list shows the key: whether one is set and where it lives, never any of its characters."""
    try:
        stored = provider.secrets()["api_key"]
    except SecretUnavailable:
        return "can no longer be decrypted — enter it again"
    if not stored:
        return "none"
    name = vault.env_reference(stored)
    return f"•••• from ${{{name}}}" if name else "•••• set"


def _per_mtok(usd: Decimal) -> Decimal:
    return (usd * _SCALE).normalize()


def _usd(amount: Decimal) -> str:
    # Cents when they say it all ($2.50), more digits when they do not ($0.075).
    text = f"{amount:f}"
    whole, _, fraction = text.partition(".")
    return f"${whole}.{fraction.rstrip('0').ljust(2, '0')}"
