"""Who may make EvalHub connect where: the egress policy of a server or a provider, decided by who owns it, and
what a changed address does to the secrets stored for the old one.

EvalHub connects from inside its host's network, so a URL is a way to make it talk to that network. Link-local and
cloud metadata addresses are refused for everyone (evalhub.egress). Loopback and private-network addresses (a local
MCP server, Ollama, a service on the LAN) are what a self-hosted eval tool is for, so they are allowed for records
that staff own, and for everyone's only when an operator sets EVALHUB_ALLOW_PRIVATE_URLS. Providers are created and
changed by staff only (evalhub/providers/views.py), so they are staff-owned.
"""

from __future__ import annotations

from django.conf import settings

from evalhub.egress import EgressPolicy

PRIVATE_HINT = (
    "only servers added by staff may reach loopback and private-network addresses "
    "(an operator can allow everyone's with EVALHUB_ALLOW_PRIVATE_URLS=1)"
)


def egress_policy(*, owner_is_staff: bool) -> EgressPolicy:
    """The policy for connections made on behalf of a record whose owner is (or is not) staff."""
    allow = owner_is_staff or bool(getattr(settings, "EVALHUB_ALLOW_PRIVATE_URLS", False))
    return EgressPolicy(allow_private=allow, private_hint=PRIVATE_HINT)


def dropped_secrets_message(labels: list[str]) -> str:
    """What saving a server or provider with a new scheme, host or port did to its stored secrets (`labels`):
    secrets go only where they were entered for, so the forms drop those the same save did not type again."""
    return (
        f"The URL now points at another address, so its stored secrets were removed ({', '.join(labels)}): "
        "they were entered for the old address. Enter them again if the new one needs them."
    )
