"""One JSON-RPC request as it went on the wire, answered or not: what a protocol check needs and a typed method
hides (the error code, a timeout, a result that breaks the schema). `Connection.raw_request` makes these."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

Outcome = Literal["result", "error", "timeout", "invalid", "failed"]


@dataclass(frozen=True)
class RawAnswer:
    """`outcome`: "result" (the result object, as sent), "error" (a JSON-RPC error: `code`, `message`),
    "timeout" (no answer within the request's timeout), "invalid" (a result that breaks the protocol's schema:
    `message` says where) or "failed" (the connection broke: `message`)."""

    outcome: Outcome
    duration_ms: int
    result: dict[str, Any] | None = None
    code: int | None = None
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.outcome == "result"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
