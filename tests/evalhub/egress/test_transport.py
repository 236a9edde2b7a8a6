"""The guarded transports, through the real openai and MCP SDKs: refused addresses are never connected to (the
recording endpoint on 127.0.0.1 receives nothing), whether given literally, reached by a redirect, or behind a name
that resolves to them (DNS rebinding: the tests' resolver maps names where they like)."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from evalhub.egress import EgressPolicy
from evalhub.mcp_client import ErrorKind, McpConnectionError, ServerConfig, inspect_server
from evalhub.model_client import ProviderError
from evalhub.model_client.client import chat
from evalhub.model_client.config import ProviderConfig
from tests.evalhub.model_client.scripted_server import Answer, ScriptedServer, completion

LINK_LOCAL = (
    "169.254.169.254 is a link-local address, where cloud metadata services answer; EvalHub never connects to "
    "link-local, cloud metadata, multicast or reserved addresses."
)
HINT = "only staff may"
MESSAGES = [{"role": "user", "content": "Hi"}]


@pytest.fixture
def scripted() -> Iterator[ScriptedServer]:
    server = ScriptedServer()
    yield server
    server.close()


def resolving(table: dict[str, list[str]], *, allow_private: bool) -> EgressPolicy:
    def resolve(host: str, port: int) -> list[str]:
        if host in table:
            return table[host]
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    return EgressPolicy(allow_private=allow_private, private_hint=HINT, resolve=resolve)


def model_error(base_url: str, egress: EgressPolicy) -> ProviderError:
    with pytest.raises(ProviderError) as caught:
        chat(ProviderConfig(name="P", base_url=base_url, timeout=5, egress=egress), messages=MESSAGES, model="m")
    return caught.value


def mcp_error(url: str, egress: EgressPolicy, transport: str = "http") -> McpConnectionError:
    with pytest.raises(McpConnectionError) as caught:
        inspect_server(ServerConfig(transport=transport, url=url, connect_timeout=5, egress=egress))  # type: ignore[arg-type]
    return caught.value


class ModelClientTests:
    def test_a_metadata_url_is_refused_once_without_retries(self) -> None:
        error = model_error("http://169.254.169.254/v1", EgressPolicy(allow_private=True))

        assert error.message == f"refused to connect to http://169.254.169.254/v1: {LINK_LOCAL}"
        assert error.attempts == 1

    def test_a_redirect_to_a_metadata_address_is_refused(self, scripted: ScriptedServer) -> None:
        scripted.script(Answer(307, "", headers={"Location": "http://169.254.169.254/latest/meta-data/"}))

        error = model_error(scripted.base_url, EgressPolicy(allow_private=True))

        assert error.message == f"refused to connect to {scripted.base_url}: {LINK_LOCAL}"
        assert [r.path for r in scripted.received] == ["/v1/chat/completions"]

    def test_a_name_resolving_to_a_metadata_address_is_refused_at_connect_time(self) -> None:
        egress = resolving({"models.rebind.test": ["169.254.169.254"]}, allow_private=True)

        error = model_error("http://models.rebind.test/v1", egress)

        assert error.message == (
            "refused to connect to http://models.rebind.test/v1: models.rebind.test resolves to 169.254.169.254, "
            "a link-local address, where cloud metadata services answer; EvalHub never connects to link-local, "
            "cloud metadata, multicast or reserved addresses."
        )

    def test_loopback_needs_a_policy_that_allows_it(self, scripted: ScriptedServer) -> None:
        error = model_error(scripted.base_url, EgressPolicy(allow_private=False, private_hint=HINT))

        assert error.message == (
            f"refused to connect to {scripted.base_url}: 127.0.0.1 is a loopback address (this machine); {HINT}."
        )
        assert scripted.received == []

    def test_it_connects_to_the_address_it_judged_and_keeps_the_host_name(self, scripted: ScriptedServer) -> None:
        scripted.script(Answer(body=completion(content="OK")))
        port = scripted.base_url.split(":")[2].split("/")[0]
        egress = resolving({"models.lan.test": ["127.0.0.1"]}, allow_private=True)

        result = chat(
            ProviderConfig(name="P", base_url=f"http://models.lan.test:{port}/v1", egress=egress),
            messages=MESSAGES,
            model="m",
        )

        assert result.text == "OK"
        assert scripted.received[0].headers["host"] == f"models.lan.test:{port}"


class McpClientTests:
    @pytest.mark.parametrize("transport", ["http", "sse"])
    def test_a_metadata_url_is_refused(self, transport: str) -> None:
        error = mcp_error("http://169.254.169.254/mcp", EgressPolicy(allow_private=True), transport)

        assert error.kind == ErrorKind.ADDRESS_REFUSED
        assert error.message == f"Refused to connect: {LINK_LOCAL}"

    @pytest.mark.parametrize("transport", ["http", "sse"])
    def test_a_name_resolving_to_a_metadata_address_is_refused(self, transport: str) -> None:
        egress = resolving({"mcp.rebind.test": ["fd00:ec2::254"]}, allow_private=True)

        error = mcp_error("http://mcp.rebind.test/mcp", egress, transport)

        assert error.kind == ErrorKind.ADDRESS_REFUSED
        assert error.message == (
            "Refused to connect: mcp.rebind.test resolves to fd00:ec2::254, a cloud metadata address; EvalHub never "
            "connects to link-local, cloud metadata, multicast or reserved addresses."
        )

    def test_localhost_needs_a_policy_that_allows_it(self, scripted: ScriptedServer) -> None:
        port = scripted.base_url.split(":")[2].split("/")[0]

        error = mcp_error(f"http://localhost:{port}/mcp", EgressPolicy(allow_private=False, private_hint=HINT))

        assert error.kind == ErrorKind.ADDRESS_REFUSED
        assert error.message == (
            f"Refused to connect: localhost resolves to 127.0.0.1, a loopback address (this machine); {HINT}."
        )
        assert scripted.received == []
