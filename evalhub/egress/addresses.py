"""Which network addresses EvalHub may connect to, and a sentence saying why not.

Three kinds of address: public ones anyone may reach; loopback and private-network ones (the EvalHub machine
itself and its network: a local MCP server, Ollama, an internal database) that a policy may allow; and ones never
reached, whoever asks: link-local addresses (169.254.0.0/16, fe80::/10, where cloud metadata services answer with
the machine's credentials), the metadata addresses themselves, multicast and reserved ranges. IPv4 addresses
wrapped in IPv6 (::ffff:a.b.c.d, NAT64, 6to4) are judged by the IPv4 address inside.

The decision is made on the address actually connected to (see `egress.transport`), after name resolution, so a
host name that resolves to a forbidden address later (DNS rebinding) is refused too.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# (host, port) → the IP addresses to try, in order. Injectable so tests can make a name resolve anywhere.
Resolver = Callable[[str, int], list[str]]

SCHEMES = ("http", "https")
# Cloud metadata endpoints outside 169.254.0.0/16: AWS over IPv6, Alibaba Cloud.
METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in ("fd00:ec2::254", "100.100.100.200"))
# Names that resolve to a metadata service inside the clouds that define them; refused before any lookup.
METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata.goog", "metadata", "instance-data"})
NAT64 = ipaddress.ip_network("64:ff9b::/96")
FORBIDDEN_NOTE = "EvalHub never connects to link-local, cloud metadata, multicast or reserved addresses"


class AddressKind(StrEnum):
    PUBLIC = "public"
    PRIVATE = "private"  # loopback, private networks, carrier-grade NAT, unique-local IPv6
    FORBIDDEN = "forbidden"  # link-local, metadata, multicast, reserved, broadcast


@dataclass(frozen=True)
class AddressClass:
    kind: AddressKind
    noun: str  # "a loopback address", for sentences


def classify(address: IPAddress) -> AddressClass:
    """What kind of address this is."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            return classify(embedded)
    if address in METADATA_ADDRESSES:
        return AddressClass(AddressKind.FORBIDDEN, "a cloud metadata address")
    if address.is_link_local:
        return AddressClass(AddressKind.FORBIDDEN, "a link-local address, where cloud metadata services answer")
    if address.is_multicast:
        return AddressClass(AddressKind.FORBIDDEN, "a multicast address")
    if address.is_loopback or address.is_unspecified:
        # Connecting to 0.0.0.0 or :: reaches this machine, like 127.0.0.1.
        return AddressClass(AddressKind.PRIVATE, "a loopback address (this machine)")
    if address.is_reserved or address == ipaddress.IPv4Address("255.255.255.255"):
        return AddressClass(AddressKind.FORBIDDEN, "a reserved address")
    if not address.is_global:
        return AddressClass(AddressKind.PRIVATE, "a private-network address")
    return AddressClass(AddressKind.PUBLIC, "a public address")


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address.sixtofour


class EgressRefused(Exception):
    """A connection EvalHub refuses to open; its text says which address and why, for the user."""


def system_resolver(host: str, port: int) -> list[str]:
    """Every address `host` resolves to, in the order the system prefers; raises socket.gaierror."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True)
class EgressPolicy:
    """Where one connection may go. `allow_private`: loopback and private networks too (forbidden addresses are
    never allowed). `private_hint` ends the sentence that refuses a private address: who may, and how to allow it.
    """

    allow_private: bool
    private_hint: str = "loopback and private-network addresses are not allowed here"
    resolve: Resolver = system_resolver

    def refusal(self, host: str, address: IPAddress) -> str | None:
        """Why connecting to `address` (what `host` resolved to) is refused, or None when it is allowed."""
        found = classify(address)
        subject = f"{host} is {found.noun}" if _same(host, address) else f"{host} resolves to {address}, {found.noun}"
        if found.kind == AddressKind.FORBIDDEN:
            return f"{subject}; {FORBIDDEN_NOTE}."
        if found.kind == AddressKind.PRIVATE and not self.allow_private:
            return f"{subject}; {self.private_hint}."
        return None

    def addresses(self, host: str, port: int) -> list[str]:
        """The addresses `host` may be reached at, after resolving it. Raises EgressRefused when any address it
        resolves to is refused (a name that also points inside the network is not trusted for its other
        addresses), socket.gaierror when it does not resolve."""
        if (problem := host_refusal(host, self)) is not None:
            raise EgressRefused(problem)
        resolved = self.resolve(host, port)
        for text in resolved:
            problem = self.refusal(host, ipaddress.ip_address(text.partition("%")[0]))
            if problem is not None:
                raise EgressRefused(problem)
        return resolved


# The Django-free clients' default: local servers are what their own tests and scripts talk to. EvalHub's models
# always pass the policy of the record's owner (evalhub.outbound).
PRIVATE_ALLOWED = EgressPolicy(allow_private=True)


def _same(host: str, address: IPAddress) -> bool:
    try:
        return ipaddress.ip_address(host.strip("[]").partition("%")[0]) == address
    except ValueError:
        return False


def host_refusal(host: str, policy: EgressPolicy) -> str | None:
    """What can be said of a host without resolving it: an address literal, localhost, a metadata name."""
    name = host.strip("[]").rstrip(".").lower()
    try:
        address = ipaddress.ip_address(name.partition("%")[0])
    except ValueError:
        address = None
    if address is not None:
        return policy.refusal(host, address)
    if name in METADATA_HOSTS:
        return f"{host} is a cloud metadata service; {FORBIDDEN_NOTE}."
    if name == "localhost" or name.endswith(".localhost"):
        return policy.refusal(host, ipaddress.IPv4Address("127.0.0.1"))
    return None


def url_refusal(url: str, policy: EgressPolicy) -> str | None:
    """Why `url` is refused before any connection (scheme, address literal, localhost, metadata name), or None.

    Host names are judged again, resolved, when EvalHub connects: DNS may answer differently then.
    """
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES or not parts.hostname:
        return "Only http:// and https:// URLs with a host are allowed, e.g. https://example.com/mcp."
    return host_refusal(parts.hostname, policy)


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) of a URL, the default port filled in: where its secrets would be sent."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None:
        port = {"http": 80, "https": 443}.get(scheme)
    return scheme, (parts.hostname or "").rstrip(".").lower(), port
