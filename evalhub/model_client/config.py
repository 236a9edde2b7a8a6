"""How to reach one model provider: what a user saves on the Providers settings page."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal

import httpx

from evalhub.egress import PRIVATE_ALLOWED, EgressPolicy

DEFAULT_TIMEOUT_SECONDS = 60.0

# Header names whose values are credentials (Azure's `api-key`, Anthropic's `x-api-key`, bearer tokens...).
_SECRET_HEADER = re.compile(r"auth|key|token|secret|cookie|password", re.IGNORECASE)


def is_secret_header(name: str) -> bool:
    """Whether a header's value is a credential that must be sealed and never shown (`api-key`, `Authorization`)."""
    return bool(_SECRET_HEADER.search(name))


@dataclass(frozen=True)
class RetryPolicy:
    """When to try a failed call again: 429, 5xx and connection errors only.

    `max_attempts` counts the first call. `max_total_seconds` bounds the whole call, waits included: a retry
    whose wait would end past it is not made. Waits are exponential with full jitter,
    `uniform(0, min(max_delay, base_delay * 2**retry))`, or at least what the provider's Retry-After asks.
    """

    max_attempts: int = 4
    max_total_seconds: float = 180.0
    base_delay: float = 1.0
    max_delay: float = 30.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        if self.max_total_seconds <= 0 or self.base_delay < 0 or self.max_delay < 0:
            raise ValueError("retry times must be positive")


@dataclass(frozen=True)
class ModelPrice:
    """A user's own price for one model, in USD per million tokens; it wins over the genai-prices data."""

    input_per_mtok: Decimal
    output_per_mtok: Decimal
    # Cached prompt tokens cost the input price unless this is set.
    cached_input_per_mtok: Decimal | None = None

    def __post_init__(self) -> None:
        # Accept floats and strings from forms and JSON, but compute in Decimal: no binary rounding in costs.
        for name in ("input_per_mtok", "output_per_mtok", "cached_input_per_mtok"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, Decimal):
                object.__setattr__(self, name, Decimal(str(value)))


@dataclass(frozen=True, repr=False)
class ProviderConfig:
    """One OpenAI-compatible endpoint: OpenAI, Azure, Ollama, vLLM, LM Studio, LiteLLM, OpenRouter...

    `api_key` may be empty for local servers; then no Authorization header is sent. `timeout` is per call
    (per attempt), in seconds. `transport` replaces the network, e.g. with the offline model's transport;
    a base URL on the host `evalhub-offline.local` gets that transport without asking. Otherwise every connection
    goes through a transport that applies `egress` to the address it connects to (redirects included).
    """

    name: str
    base_url: str
    api_key: str = ""
    extra_headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT_SECONDS
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    price_overrides: Mapping[str, ModelPrice] = field(default_factory=dict)
    transport: httpx.BaseTransport | None = field(default=None, compare=False)
    egress: EgressPolicy = field(default=PRIVATE_ALLOWED, compare=False)

    def __post_init__(self) -> None:
        if self.timeout <= 0:
            raise ValueError("timeout must be positive")

    @property
    def secrets(self) -> tuple[str, ...]:
        """Values that must never be shown: the API key and credential-like header values."""
        values = [self.api_key] + [v for k, v in self.extra_headers.items() if _SECRET_HEADER.search(k)]
        return tuple(v for v in values if v)

    def redact(self, text: str) -> str:
        """Replace every secret in `text`, e.g. a provider's error message that quotes the key."""
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text

    def __repr__(self) -> str:
        # Secrets stay out of repr so that tracebacks, logs and Celery task reprs never show them.
        headers = {k: ("***" if _SECRET_HEADER.search(k) else v) for k, v in self.extra_headers.items()}
        return (
            f"ProviderConfig(name={self.name!r}, base_url={self.base_url!r}, "
            f"api_key={'***' if self.api_key else ''!r}, extra_headers={headers!r}, timeout={self.timeout!r}, "
            f"retry={self.retry!r}, price_overrides={dict(self.price_overrides)!r})"
        )
