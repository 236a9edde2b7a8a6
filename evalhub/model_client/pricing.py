"""What a call cost, in USD, from its token usage.

The price comes from, in order:
1. the user's override for the model (`ProviderConfig.price_overrides`, USD per million tokens);
2. the bundled genai-prices data, when the base URL is a provider it knows (api.openai.com, Azure,
   api.anthropic.com, Google, OpenRouter, Groq...), for that provider's price of the model;
3. nothing, when the base URL is on this machine or a private network (Ollama, vLLM, LM Studio): a local
   "deepseek-r1:7b" is not DeepSeek's API, and guessing would show a made-up cost;
4. otherwise (a gateway such as LiteLLM on a public host) genai-prices infers the provider from the model
   name, with or without a "vendor/" prefix ("gpt-4.1-mini", "openai/gpt-4o", "claude-sonnet-4-5"),
   assuming the gateway charges upstream list prices.
No price → every amount is None and the UI shows "unknown". The offline model is free: zero, not unknown.
"""

from __future__ import annotations

import ipaddress
import re
import warnings
from collections.abc import Mapping
from decimal import Decimal
from functools import lru_cache
from urllib.parse import urlsplit

from genai_prices import Usage, calc_price
from genai_prices.data_snapshot import get_snapshot

from evalhub.model_client.config import ModelPrice
from evalhub.model_client.results import CostBreakdown, TokenUsage

FREE_MODELS = frozenset({"evalhub-offline"})
_MILLION = Decimal(1_000_000)
_ZERO = Decimal(0)


def price_call(
    *,
    model: str,
    usage: TokenUsage | None,
    base_url: str,
    overrides: Mapping[str, ModelPrice] | None = None,
    response_model: str | None = None,
) -> CostBreakdown:
    """Cost of one call. `model` is the name the user configured, `response_model` the one the provider
    reported (often dated, e.g. "gpt-4o-2024-08-06"); either may match an override or the price data."""
    if usage is None:
        return CostBreakdown()
    names = [name for name in dict.fromkeys([model, response_model]) if name]
    if any(name in FREE_MODELS for name in names):
        return CostBreakdown(_ZERO, _ZERO, _ZERO, source="free")
    for name in names:
        if overrides and name in overrides:
            return _price_with_override(usage, overrides[name])
    for name in names:
        cost = _price_from_data(usage, name, base_url)
        if cost is not None:
            return cost
    return CostBreakdown()


def _price_with_override(usage: TokenUsage, price: ModelPrice) -> CostBreakdown:
    cached = min(usage.cached_tokens, usage.input_tokens)
    cached_price = price.input_per_mtok if price.cached_input_per_mtok is None else price.cached_input_per_mtok
    input_usd = ((usage.input_tokens - cached) * price.input_per_mtok + cached * cached_price) / _MILLION
    output_usd = usage.output_tokens * price.output_per_mtok / _MILLION
    return CostBreakdown(input_usd, output_usd, input_usd + output_usd, source="override")


def _price_from_data(usage: TokenUsage, model: str, base_url: str) -> CostBreakdown | None:
    # genai-prices counts cache reads inside input_tokens, as OpenAI's prompt_tokens does.
    tokens = Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cache_read_tokens=min(usage.cached_tokens, usage.input_tokens),
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if _is_known_provider_url(base_url):
                calc = calc_price(tokens, model, provider_api_url=base_url)
            elif _is_local(base_url):
                return None
            else:
                # "litellm" makes genai-prices read a "vendor/" prefix, and infer the vendor without one.
                calc = calc_price(tokens, model, provider_id="litellm")
    except (LookupError, ValueError):
        return None
    return CostBreakdown(calc.input_price, calc.output_price, calc.total_price, source="genai-prices")


@lru_cache(maxsize=256)
def _is_known_provider_url(base_url: str) -> bool:
    try:
        get_snapshot().find_provider(None, None, base_url)
    except LookupError:
        return False
    return True


_LOCAL_NAMES = re.compile(r"^(localhost|host\.docker\.internal)$|\.(local|localhost|internal|lan|home\.arpa)$")


@lru_cache(maxsize=256)
def _is_local(base_url: str) -> bool:
    host = (urlsplit(base_url).hostname or "").lower()
    if not host or "." not in host or _LOCAL_NAMES.search(host):
        # A single-label name ("ollama", "vllm") is a container or LAN host.
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_private or address.is_loopback or address.is_link_local
