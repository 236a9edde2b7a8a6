"""The address classifier and the policy's decisions, with a resolver the tests control (no DNS)."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from evalhub.egress import AddressKind, EgressPolicy, EgressRefused, classify, origin, url_refusal

FORBIDDEN_NOTE = "EvalHub never connects to link-local, cloud metadata, multicast or reserved addresses."


def resolver(table: dict[str, list[str]]) -> object:
    def resolve(host: str, port: int) -> list[str]:
        if host not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return table[host]

    return resolve


class ClassifyTests:
    @pytest.mark.parametrize(
        ("address", "kind", "noun"),
        [
            ("169.254.169.254", "forbidden", "a link-local address, where cloud metadata services answer"),
            ("169.254.170.2", "forbidden", "a link-local address, where cloud metadata services answer"),
            ("fd00:ec2::254", "forbidden", "a cloud metadata address"),
            ("100.100.100.200", "forbidden", "a cloud metadata address"),
            ("fe80::1", "forbidden", "a link-local address, where cloud metadata services answer"),
            ("::ffff:169.254.169.254", "forbidden", "a link-local address, where cloud metadata services answer"),
            ("64:ff9b::a9fe:a9fe", "forbidden", "a link-local address, where cloud metadata services answer"),
            ("2002:a9fe:a9fe::1", "forbidden", "a link-local address, where cloud metadata services answer"),
            ("224.0.0.1", "forbidden", "a multicast address"),
            ("240.0.0.1", "forbidden", "a reserved address"),
            ("255.255.255.255", "forbidden", "a reserved address"),
            ("127.0.0.1", "private", "a loopback address (this machine)"),
            ("::1", "private", "a loopback address (this machine)"),
            ("0.0.0.0", "private", "a loopback address (this machine)"),
            ("::ffff:127.0.0.1", "private", "a loopback address (this machine)"),
            ("10.1.2.3", "private", "a private-network address"),
            ("172.16.0.1", "private", "a private-network address"),
            ("192.168.1.10", "private", "a private-network address"),
            ("100.64.0.1", "private", "a private-network address"),
            ("fd12:3456::1", "private", "a private-network address"),
            ("93.184.216.34", "public", "a public address"),
            ("2606:4700::1111", "public", "a public address"),
        ],
    )
    def test_it_classifies(self, address: str, kind: str, noun: str) -> None:
        found = classify(ipaddress.ip_address(address))

        assert (found.kind, found.noun) == (AddressKind(kind), noun)


class PolicyTests:
    def test_a_name_resolving_to_a_metadata_address_is_refused(self) -> None:
        policy = EgressPolicy(allow_private=True, resolve=resolver({"rebind.example": ["169.254.169.254"]}))

        with pytest.raises(EgressRefused) as refused:
            policy.addresses("rebind.example", 80)

        assert str(refused.value) == (
            "rebind.example resolves to 169.254.169.254, a link-local address, where cloud metadata services answer; "
            + FORBIDDEN_NOTE
        )

    def test_one_refused_address_among_public_ones_refuses_the_name(self) -> None:
        table = {"mixed.example": ["93.184.216.34", "10.0.0.5"]}
        policy = EgressPolicy(allow_private=False, private_hint="ask staff", resolve=resolver(table))

        with pytest.raises(EgressRefused) as refused:
            policy.addresses("mixed.example", 443)

        assert str(refused.value) == "mixed.example resolves to 10.0.0.5, a private-network address; ask staff."

    def test_allowed_addresses_come_back_in_order(self) -> None:
        table = {"lan.example": ["10.0.0.5", "10.0.0.6"], "public.example": ["93.184.216.34"]}

        assert EgressPolicy(allow_private=True, resolve=resolver(table)).addresses("lan.example", 80) == [
            "10.0.0.5",
            "10.0.0.6",
        ]
        assert EgressPolicy(allow_private=False, resolve=resolver(table)).addresses("public.example", 80) == [
            "93.184.216.34"
        ]

    def test_metadata_names_are_refused_before_any_lookup(self) -> None:
        policy = EgressPolicy(allow_private=True, resolve=resolver({}))

        with pytest.raises(EgressRefused, match=r"^metadata\.google\.internal is a cloud metadata service; "):
            policy.addresses("metadata.google.internal", 80)

    def test_a_name_that_does_not_resolve_raises_the_resolvers_error(self) -> None:
        with pytest.raises(socket.gaierror):
            EgressPolicy(allow_private=True, resolve=resolver({})).addresses("nowhere.example", 80)


class UrlRefusalTests:
    staff = EgressPolicy(allow_private=True)
    member = EgressPolicy(allow_private=False, private_hint="only staff may")

    @pytest.mark.parametrize(
        ("url", "policy", "refusal"),
        [
            ("ftp://example.com/mcp", "staff", "Only http:// and https:// URLs with a host are allowed"),
            ("file:///etc/passwd", "staff", "Only http:// and https:// URLs with a host are allowed"),
            ("http://169.254.169.254/latest", "staff", "169.254.169.254 is a link-local address"),
            ("http://[fd00:ec2::254]/latest", "staff", "fd00:ec2::254 is a cloud metadata address"),
            ("http://metadata.google.internal/", "staff", "metadata.google.internal is a cloud metadata service"),
            ("http://127.0.0.1:8000/mcp", "member", "127.0.0.1 is a loopback address (this machine); only staff may."),
            ("http://localhost:8000/mcp", "member", "localhost resolves to 127.0.0.1, a loopback address"),
            ("http://10.0.0.5/mcp", "member", "10.0.0.5 is a private-network address; only staff may."),
        ],
    )
    def test_it_refuses(self, url: str, policy: str, refusal: str) -> None:
        found = url_refusal(url, getattr(self, policy))

        assert found is not None and found.startswith(refusal), found

    @pytest.mark.parametrize(
        ("url", "policy"),
        [
            ("http://127.0.0.1:8000/mcp", "staff"),
            ("http://localhost:11434/v1", "staff"),
            ("https://mcp.example.com/mcp", "member"),
            ("http://mcp-server:8080/mcp", "member"),  # a name: judged when resolved, at connect time
        ],
    )
    def test_it_allows(self, url: str, policy: str) -> None:
        assert url_refusal(url, getattr(self, policy)) is None


class OriginTests:
    def test_default_ports_and_case_do_not_change_the_origin(self) -> None:
        assert origin("https://MCP.example.com/mcp") == origin("https://mcp.example.com:443/other?x=1")
        assert origin("http://example.com/") == ("http", "example.com", 80)

    def test_scheme_host_and_port_do(self) -> None:
        base = origin("https://mcp.example.com/mcp")

        assert origin("http://mcp.example.com/mcp") != base
        assert origin("https://evil.example.com/mcp") != base
        assert origin("https://mcp.example.com:8443/mcp") != base
