"""Where EvalHub may open network connections: pure Python, no Django.

`addresses` classifies addresses and judges URLs against an `EgressPolicy`; `transport` builds httpx and httpx2
transports that apply the policy to the address of every connection they open. The MCP client and the model
client both connect through them; EvalHub's models decide each policy (see `evalhub.outbound`).
"""

from evalhub.egress.addresses import (
    PRIVATE_ALLOWED,
    AddressKind,
    EgressPolicy,
    EgressRefused,
    classify,
    host_refusal,
    origin,
    url_refusal,
)
from evalhub.egress.transport import guarded_async_transport, tls_context

__all__ = [
    "PRIVATE_ALLOWED",
    "AddressKind",
    "EgressPolicy",
    "EgressRefused",
    "classify",
    "guarded_async_transport",
    "host_refusal",
    "origin",
    "tls_context",
    "url_refusal",
]
