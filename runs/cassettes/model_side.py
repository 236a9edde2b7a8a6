"""Between the agent and its model: a client that records every chat, and one that answers from a cassette.

Both have ProviderClient's `chat`, so the agent loop, a single invocation and a simulated user use them unchanged.
Django-free.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from evalhub.model_client.client import ProviderClient, parse_arguments
from evalhub.model_client.errors import ErrorKind, ProviderError
from evalhub.model_client.results import ChatResult, CostBreakdown, TokenUsage, ToolCall
from runs.cassettes.fork import Change, changed_request
from runs.cassettes.matching import AGENT, CassetteMiss, first_difference
from runs.cassettes.tape import MODEL, Exchange, Tape

# What a replayed call's cost says it is: the recorded call's price, not money spent again.
REPLAYED_COST_SOURCE = "cassette"
# The keyword arguments of ProviderClient.chat that are the request (a deadline is how long to wait, not what to ask).
_REQUEST_PARAMS = ("model", "messages", "tools", "tool_choice", "response_format", "max_tokens", "temperature")


def model_request(kwargs: dict[str, Any]) -> dict[str, Any]:
    """A chat's request as a cassette holds it: the parameters that were set, in a fixed order."""
    request = {name: kwargs[name] for name in _REQUEST_PARAMS if kwargs.get(name) is not None}
    request["messages"] = [dict(message) for message in request.get("messages", [])]
    if "tools" in request:
        request["tools"] = [dict(tool) for tool in request["tools"]]
    return request


class RecordingClient:
    """`inner`'s chats, each recorded on `tape` (answer or provider error) on the way back."""

    def __init__(self, inner: Any, tape: Tape, channel: str = MODEL) -> None:
        self._inner, self._tape, self._channel = inner, tape, channel

    def chat(self, **kwargs: Any) -> ChatResult:
        started = time.perf_counter()
        request = model_request(kwargs)
        try:
            result: ChatResult = self._inner.chat(**kwargs)
        except ProviderError as exc:
            self._tape.add(self._channel, request, error=error_json(exc), ms=_since(started))
            raise
        self._tape.add(self._channel, request, response=result_json(result), ms=_since(started))
        return result


class CassetteClient:
    """Answers chats from `source`'s `channel` in order, each after checking its request is the recorded one.

    A fork's client goes live at the `live_from`-th chat (0-based): `live()` answers it and every later one, their
    requests changed by `change`.
    """

    def __init__(
        self,
        source: Tape,
        *,
        normal: Callable[[Any], tuple[Any, bool]],
        channel: str = MODEL,
        live: Callable[[], ProviderClient] | None = None,
        live_from: int | None = None,
        change: Change | None = None,
    ) -> None:
        self._source, self._normal, self._channel = source, normal, channel
        self._live, self._live_from, self._change = live, live_from, change
        self._live_client: ProviderClient | None = None
        self.calls = 0

    def chat(self, **kwargs: Any) -> ChatResult:
        index = self.calls
        self.calls += 1
        if self._live is not None and self._live_from is not None and index >= self._live_from:
            if self._change is not None:
                kwargs = {**kwargs, **changed_request(model_request(kwargs), self._change)}
            if self._live_client is None:
                self._live_client = self._live()
            return self._live_client.chat(**kwargs)
        recorded = self._recorded(index, kwargs)
        if recorded.error is not None:
            raise error_from(recorded.error)
        assert recorded.response is not None
        return result_from(recorded.response)

    def _recorded(self, index: int, kwargs: dict[str, Any]) -> Exchange:
        step, what = f"model call {index + 1}", f"model request {index + 1}"
        recorded = self._source.at(self._channel, index)
        if recorded is None:
            side = "" if self._source.truncated else AGENT
            made = len(self._source.exchanges[self._channel])
            note = "the cassette was cut before it" if side == "" else f"the recorded run made only {made}"
            raise CassetteMiss(step=step, side=side, what=what, difference=None, note=note + ".")
        difference = first_difference(recorded.request, self._normal(model_request(kwargs))[0])
        if difference is not None:
            raise CassetteMiss(step=step, side=AGENT, what=what, difference=difference)
        if recorded.cut:
            raise CassetteMiss(step=step, side="", what=what, difference=None, note="its answer was too big to keep.")
        return recorded


def result_json(result: ChatResult) -> dict[str, Any]:
    usage = result.usage
    cost = result.cost
    return {
        "text": result.text,
        "toolCalls": [
            {"id": call.id, "name": call.name, "arguments": call.raw_arguments} for call in result.tool_calls
        ],
        "finishReason": result.finish_reason,
        "usage": None if usage is None else [usage.input_tokens, usage.output_tokens, usage.cached_tokens],
        "cost": [_text(cost.input_usd), _text(cost.output_usd), _text(cost.total_usd), cost.source],
        "model": result.model,
        "attempts": result.attempts,
        "message": result.message,
    }


def result_from(data: dict[str, Any]) -> ChatResult:
    """The recorded answer, as the client returned it; its latency is the replay's own (none to speak of)."""
    calls = []
    for call in data["toolCalls"]:
        arguments, problem = parse_arguments(call["arguments"])
        calls.append(ToolCall(call["id"], call["name"], arguments, call["arguments"], problem))
    usage = data.get("usage")
    input_usd, output_usd, total_usd, _source = data["cost"]
    return ChatResult(
        text=data["text"],
        tool_calls=calls,
        finish_reason=data["finishReason"],
        usage=TokenUsage(*usage) if usage is not None else None,
        cost=CostBreakdown(_decimal(input_usd), _decimal(output_usd), _decimal(total_usd), REPLAYED_COST_SOURCE),
        latency_ms=0.0,
        total_ms=0.0,
        attempts=int(data.get("attempts") or 1),
        model=data["model"],
        message=data["message"],
    )


def error_json(exc: ProviderError) -> dict[str, Any]:
    return {
        "kind": exc.kind.value,
        "message": exc.message,
        "status": exc.status_code,
        "detail": exc.detail,
        "attempts": exc.attempts,
    }


def error_from(data: dict[str, Any]) -> ProviderError:
    return ProviderError(
        ErrorKind(data["kind"]),
        data["message"],
        status_code=data.get("status"),
        detail=data.get("detail") or "",
        attempts=int(data.get("attempts") or 1),
    )


def _since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _text(amount: Decimal | None) -> str | None:
    return None if amount is None else str(amount)


def _decimal(amount: str | None) -> Decimal | None:
    return None if amount is None else Decimal(amount)
