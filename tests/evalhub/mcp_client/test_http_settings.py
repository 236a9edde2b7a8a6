"""A server's HTTP settings on real HTTP servers: timeouts, User-Agent, redirects and TLS (a self-signed front)."""

from __future__ import annotations

import socket
import ssl
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from evalhub.mcp_client import ErrorKind, McpConnectionError, ServerConfig, connect, inspect_server

from .helpers import Stub, free_port
from .tls_helpers import self_signed, tls_front


def http_config(url: str, **overrides: Any) -> ServerConfig:
    return ServerConfig(**({"transport": "http", "url": url, "connect_timeout": 10.0} | overrides))


def inspect_error(config: ServerConfig) -> McpConnectionError:
    with pytest.raises(McpConnectionError) as caught:
        inspect_server(config)
    return caught.value


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return self_signed(tmp_path_factory.mktemp("tls"))


@pytest.fixture(scope="module")
def demo_port(demo_http_url: str) -> int:
    return int(demo_http_url.rsplit(":", 1)[1].split("/")[0])


@pytest.fixture
def tls_url(demo_port: int, certificate: tuple[Path, Path]) -> Iterator[str]:
    with tls_front(demo_port, *certificate) as port:
        yield f"https://127.0.0.1:{port}/mcp"


class TimeoutTests:
    def test_the_http_timeout_ends_a_silent_answer_after_its_value(self, demo_http_url: str) -> None:
        config = http_config(demo_http_url, http_timeout=0.5, request_timeout=20.0)
        started: list[float] = []

        async def call() -> None:
            # The SDK ends the whole session when an answer times out, not only the one request.
            async with connect(config) as conn:
                started.append(time.monotonic())
                await conn.call_tool("wait", {"seconds": 10})

        with pytest.raises(McpConnectionError) as caught:
            anyio.run(call)

        elapsed = time.monotonic() - started[0]
        assert caught.value.kind == ErrorKind.REQUEST_TIMEOUT
        assert "sent nothing for 0.5 s (the server's HTTP timeout)" in caught.value.message
        assert 0.4 <= elapsed < 3.0

    def test_an_idle_session_outlives_the_http_timeout(self, demo_http_url: str) -> None:
        async def idle_then_list() -> int:
            async with connect(http_config(demo_http_url, http_timeout=2.0)) as conn:
                await conn.list_tools()
                # Idle longer than the HTTP timeout: the silent GET event stream must not count as an answer.
                await anyio.sleep(3.0)
                return len(await conn.list_tools())

        assert anyio.run(idle_then_list) == 5

    def test_without_an_http_timeout_a_slow_answer_arrives(self, demo_http_url: str) -> None:
        async def call() -> Any:
            async with connect(http_config(demo_http_url, request_timeout=20.0)) as conn:
                return await conn.call_tool("wait", {"seconds": 0.8})

        result = anyio.run(call)

        assert result["structuredContent"] == {"waited_seconds": 0.8}

    def test_the_connect_timeout_bounds_a_tls_handshake_that_never_ends(self) -> None:
        # A socket that listens but never answers: the kernel accepts TCP, nobody speaks TLS.
        with socket.socket() as silent:
            silent.bind(("127.0.0.1", 0))
            silent.listen(8)
            port = silent.getsockname()[1]
            started = time.monotonic()

            error = inspect_error(http_config(f"https://127.0.0.1:{port}/mcp", connect_timeout=0.7))

            elapsed = time.monotonic() - started
        assert error.kind == ErrorKind.CONNECT_TIMEOUT
        assert 0.6 <= elapsed < 4.0


class UserAgentTests:
    def test_the_override_is_what_the_server_receives(self, http_stub: Callable[..., Stub]) -> None:
        stub = http_stub(401)

        inspect_error(http_config(stub.url, user_agent_override="acme-probe/2.1"))

        assert stub.received[0]["User-Agent"] == "acme-probe/2.1"

    def test_without_it_the_client_default_is_sent(self, http_stub: Callable[..., Stub]) -> None:
        stub = http_stub(401)

        inspect_error(http_config(stub.url))

        assert "acme" not in stub.received[0]["User-Agent"]
        assert stub.received[0]["User-Agent"]


class RedirectTests:
    def test_redirects_stop_at_the_limit(self, http_stub: Callable[..., Stub]) -> None:
        stub = http_stub(307, headers={"Location": "/mcp/next"})

        error = inspect_error(http_config(stub.url, max_redirects=3, protocol_mode="legacy"))

        assert stub.paths == ["/mcp", "/mcp/next", "/mcp/next", "/mcp/next"]  # the request and three redirects
        assert error.kind == ErrorKind.HTTP_ERROR
        assert error.message == (
            f"The server at http://127.0.0.1:{stub.port}/mcp answered with a redirect (HTTP 307) that was not "
            "followed: EvalHub follows at most 3 (the server's Max redirects), and only to the same scheme, host "
            "and port, since headers and tokens were given for this address. Use the final URL."
        )

    def test_zero_follows_none(self, http_stub: Callable[..., Stub]) -> None:
        stub = http_stub(307, headers={"Location": "/mcp/next"})

        error = inspect_error(http_config(stub.url, max_redirects=0, protocol_mode="legacy"))

        assert stub.paths == ["/mcp"]
        assert "follows at most 0 (the server's Max redirects)" in error.message

    def test_a_redirect_to_another_address_is_never_followed(self, http_stub: Callable[..., Stub]) -> None:
        elsewhere = http_stub(401)
        stub = http_stub(307, headers={"Location": elsewhere.url})

        error = inspect_error(http_config(stub.url, headers={"X-Api-Key": "k-123"}, protocol_mode="legacy"))

        assert elsewhere.received == []
        assert error.kind == ErrorKind.HTTP_ERROR
        assert "that was not followed" in error.message


class TlsTests:
    def test_a_self_signed_certificate_is_refused_by_default(self, tls_url: str) -> None:
        error = inspect_error(http_config(tls_url))

        assert error.kind == ErrorKind.TLS_ERROR
        assert "certificate" in error.message

    def test_it_is_accepted_with_its_ca_bundle(self, tls_url: str, certificate: tuple[Path, Path]) -> None:
        inspection = inspect_server(http_config(tls_url, tls_ca_bundle_path=str(certificate[0])))

        assert "wait" in [tool["name"] for tool in inspection.tools]

    def test_it_is_accepted_without_verification(self, tls_url: str) -> None:
        inspection = inspect_server(http_config(tls_url, tls_insecure_skip_verify=True))

        assert "wait" in [tool["name"] for tool in inspection.tools]

    def test_the_minimum_version_is_enforced(self, demo_port: int, certificate: tuple[Path, Path]) -> None:
        bundle = str(certificate[0])
        with tls_front(demo_port, *certificate, max_version=ssl.TLSVersion.TLSv1_2) as port:
            url = f"https://127.0.0.1:{port}/mcp"
            accepted = inspect_server(http_config(url, tls_ca_bundle_path=bundle, tls_min_version="1.2"))
            error = inspect_error(http_config(url, tls_ca_bundle_path=bundle, tls_min_version="1.3"))

        assert accepted.tools
        assert error.kind == ErrorKind.TLS_ERROR

    def test_an_unreadable_ca_bundle_is_named(self, tls_url: str, tmp_path: Path) -> None:
        missing = tmp_path / "nowhere.pem"

        error = inspect_error(http_config(tls_url, tls_ca_bundle_path=str(missing)))

        assert error.kind == ErrorKind.INVALID_CONFIG
        assert error.message.startswith(f"The CA bundle {missing} could not be loaded (No such file or directory)")


def test_a_closed_port_is_still_reported_with_settings_set() -> None:
    port = free_port()

    error = inspect_error(http_config(f"http://127.0.0.1:{port}/mcp", http_timeout=2.0, max_redirects=2))

    assert error.kind == ErrorKind.CONNECTION_REFUSED
