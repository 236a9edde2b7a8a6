"""Model providers: OpenAI-compatible endpoints the agent, judges and scorer generation talk to."""

from __future__ import annotations

import os
from decimal import Decimal
from typing import Any

from django.db import models

from evalhub import outbound, vault
from evalhub.model_client.config import ModelPrice, ProviderConfig

OFFLINE_BASE_URL = "http://evalhub-offline.local/v1"
OFFLINE_MODEL = "evalhub-offline"
OPENAI_KEY_VARIABLE = "OPENAI_API_KEY"
BUILTIN_KEY_REFERENCES = frozenset({OPENAI_KEY_VARIABLE})
OPENAI_DEFAULT_MODELS = ["gpt-4.1-mini", "gpt-4.1", "gpt-4o-mini", "gpt-4o", "o4-mini"]


class Provider(models.Model):
    class Kind(models.TextChoices):
        OFFLINE = "offline", "Built-in offline model (rule-based)"
        OPENAI_COMPATIBLE = "openai", "OpenAI-compatible endpoint"

    name = models.CharField(max_length=120, unique=True)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.OPENAI_COMPATIBLE)
    base_url = models.URLField(max_length=500)
    headers = models.JSONField(default=dict, blank=True)
    # The API key and secret headers, sealed together (see evalhub.vault); never shown again after saving.
    sealed_secrets = models.TextField(blank=True, editable=False)
    model_names = models.JSONField(default=list, blank=True, help_text="The models this provider serves.")
    # {model: {"input": "2.50", "output": "10.00"}} in USD per million tokens; wins over genai-prices.
    price_overrides = models.JSONField(default=dict, blank=True)
    timeout = models.FloatField(default=60.0)
    is_builtin = models.BooleanField(default=False, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    last_test = models.JSONField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["-is_builtin", "name"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_offline(self) -> bool:
        return self.kind == self.Kind.OFFLINE

    def secrets(self) -> dict[str, Any]:
        data = vault.unseal(self.sealed_secrets)
        return {"api_key": data.get("api_key", ""), "headers": data.get("headers", {})}

    def set_secrets(self, *, api_key: str, headers: dict[str, str]) -> None:
        data: dict[str, object] = {}
        if api_key:
            data["api_key"] = api_key
        if headers:
            data["headers"] = headers
        self.sealed_secrets = vault.seal(data)

    def secret_names(self) -> list[str]:
        data = self.secrets()
        names = ["API key"] if data["api_key"] else []
        return names + [f"header {name}" for name in sorted(data["headers"])]

    def to_config(self) -> ProviderConfig:
        data = self.secrets()
        # The built-in OpenAI provider reads OPENAI_API_KEY by design; no other record may reference it.
        builtin = BUILTIN_KEY_REFERENCES if self.is_builtin else frozenset()
        return ProviderConfig(
            name=self.name,
            base_url=self.base_url,
            api_key=vault.reveal(data["api_key"], builtin=builtin) if data["api_key"] else "",
            extra_headers={**self.headers, **{k: vault.reveal(v) for k, v in data["headers"].items()}},
            timeout=self.timeout,
            price_overrides=self.model_prices(),
            # Only staff create and change providers (providers/views.py): theirs may reach local model servers.
            egress=outbound.egress_policy(owner_is_staff=True),
        )

    def model_prices(self) -> dict[str, ModelPrice]:
        """The user's price overrides, USD per million tokens (no secrets needed, unlike to_config)."""
        return {
            model: ModelPrice(input_per_mtok=Decimal(str(p["input"])), output_per_mtok=Decimal(str(p["output"])))
            for model, p in self.price_overrides.items()
        }


def ensure_builtin_providers() -> None:
    """The offline model always exists; an "OpenAI" provider exists whenever OPENAI_API_KEY is set."""
    Provider.objects.get_or_create(
        kind=Provider.Kind.OFFLINE,
        is_builtin=True,
        defaults={"name": "EvalHub offline", "base_url": OFFLINE_BASE_URL, "model_names": [OFFLINE_MODEL]},
    )
    if os.environ.get(OPENAI_KEY_VARIABLE) and not Provider.objects.filter(name="OpenAI").exists():
        provider = Provider(
            name="OpenAI", base_url="https://api.openai.com/v1", model_names=OPENAI_DEFAULT_MODELS, is_builtin=True
        )
        # A reference, not a copy: the key stays in the environment and follows it when it changes.
        provider.set_secrets(api_key=f"${{{OPENAI_KEY_VARIABLE}}}", headers={})
        provider.save()


def offline_provider() -> Provider:
    ensure_builtin_providers()
    return Provider.objects.get(kind=Provider.Kind.OFFLINE, is_builtin=True)


class SiteSettings(models.Model):
    """One row (pk=1). Empty choices mean the built-in offline model."""

    generation_provider = models.ForeignKey(
        Provider, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    generation_model = models.CharField(max_length=200, blank=True, help_text="Writes code scorers from descriptions.")
    judge_provider = models.ForeignKey(Provider, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    judge_model = models.CharField(max_length=200, blank=True, help_text="The default model of new LLM judges.")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "site settings"
        verbose_name_plural = "site settings"

    def __str__(self) -> str:
        return "Site settings"

    @classmethod
    def load(cls) -> SiteSettings:
        settings, _ = cls.objects.get_or_create(pk=1)
        return settings
