"""What one chat call returns: text, tool calls, usage, cost and timing."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from evalhub.model_client.errors import ErrorKind, ProviderError


@dataclass(frozen=True)
class ToolCall:
    """One function call the model asked for.

    `arguments` is None when the model sent arguments that are not a JSON object; then `arguments_error`
    says why and `raw_arguments` keeps the exact text. That is the model's mistake, not the provider's, so
    `chat` returns it instead of raising: the agent loop records it in the transcript and answers the call
    with a tool error, as a real agent would. `require_arguments()` raises instead, for callers that
    cannot go on without arguments.
    """

    id: str
    name: str
    arguments: dict[str, Any] | None
    raw_arguments: str
    arguments_error: str | None = None

    @property
    def is_malformed(self) -> bool:
        return self.arguments is None

    def require_arguments(self) -> dict[str, Any]:
        if self.arguments is None:
            raise ProviderError(
                ErrorKind.MALFORMED_TOOL_ARGUMENTS,
                f"the model called {self.name!r} with arguments that are not a JSON object: {self.arguments_error}",
                raw_arguments=self.raw_arguments,
            )
        return self.arguments


@dataclass(frozen=True)
class TokenUsage:
    """Token counts as the provider reported them; `input_tokens` includes `cached_tokens`."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class CostBreakdown:
    """USD cost of one call. Every amount is None when the price is not known: never a guess.

    `source` says where the price came from: "override" (the user's price), "genai-prices", "free"
    (the offline model) or "unknown".
    """

    input_usd: Decimal | None = None
    output_usd: Decimal | None = None
    total_usd: Decimal | None = None
    source: str = "unknown"

    @property
    def is_known(self) -> bool:
        return self.total_usd is not None


@dataclass(frozen=True)
class ChatResult:
    """One assistant turn.

    `message` is the assistant message cleaned to what every OpenAI-compatible server accepts back
    (role, content, tool_calls with the raw argument text): append it to `messages` for the next turn.
    `usage` is None when the provider reported none (then the cost is unknown too). `latency_ms` times the
    attempt that answered; `total_ms` includes failed attempts and retry waits.
    """

    text: str
    tool_calls: list[ToolCall]
    finish_reason: str
    usage: TokenUsage | None
    cost: CostBreakdown
    latency_ms: float
    total_ms: float
    attempts: int
    model: str
    message: dict[str, Any]
    raw_response: dict[str, Any] = field(repr=False, default_factory=dict)

    @property
    def malformed_tool_calls(self) -> list[ToolCall]:
        return [call for call in self.tool_calls if call.is_malformed]
