"""The model-provider layer: chat with any OpenAI-compatible endpoint, price the call, fail with one error type.

Pure Python (no Django): the web app and the Celery worker both call it.

    config = ProviderConfig(name="OpenAI", base_url="https://api.openai.com/v1", api_key=key)
    result = chat(config, messages=[{"role": "user", "content": "Hi"}], model="gpt-4.1-mini", tools=tools)
    messages.append(result.message)   # then one {"role": "tool", ...} message per result.tool_calls

The built-in offline model: `offline_config()`, model "evalhub-offline" (see `evalhub.model_client.offline`).
"""

from __future__ import annotations

from evalhub.model_client.client import ProviderClient, chat, parse_arguments, test_provider
from evalhub.model_client.config import DEFAULT_TIMEOUT_SECONDS, ModelPrice, ProviderConfig, RetryPolicy
from evalhub.model_client.errors import ErrorKind, ProviderError
from evalhub.model_client.offline import OFFLINE_BASE_URL, OFFLINE_MODEL, offline_config
from evalhub.model_client.pricing import price_call
from evalhub.model_client.results import ChatResult, CostBreakdown, TokenUsage, ToolCall

__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "OFFLINE_BASE_URL",
    "OFFLINE_MODEL",
    "ChatResult",
    "CostBreakdown",
    "ErrorKind",
    "ModelPrice",
    "ProviderClient",
    "ProviderConfig",
    "ProviderError",
    "RetryPolicy",
    "TokenUsage",
    "ToolCall",
    "chat",
    "offline_config",
    "parse_arguments",
    "price_call",
    "test_provider",
]
