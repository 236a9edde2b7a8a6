"""HTTP endpoints that fail: a closed port, real servers answering 401/403/404/500 or HTML, a TLS mismatch."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

import anyio
import pytest

from evalhub.mcp_client import ErrorKind, McpConnectionError, ServerConfig, connect, inspect_server

from .helpers import Stub, free_port, start_demo, stop

TOKEN = "tok-9f8e7d6c5b4a"


def inspect_error(url: str, connect_timeout: float = 5) -> McpConnectionError:
    config = ServerConfig(transport="http", url=url, bearer_token=TOKEN, connect_timeout=connect_timeout)
    with pytest.raises(McpConnectionError) as caught:
        inspect_server(config)
    assert TOKEN not in caught.value.message
    return caught.value


class HttpFailureTests:
    def test_it_reports_a_closed_port(self) -> None:
        port = free_port()

        error = inspect_error(f"http://127.0.0.1:{port}/mcp")

        assert error.kind == ErrorKind.CONNECTION_REFUSED
        assert error.message == f"Could not connect to 127.0.0.1:{port} (connection refused); is the server running?"

    def test_it_reports_rejected_credentials(self, http_stub: Callable[..., Stub]) -> None:
        stub = http_stub(401, body=f"bad token {TOKEN}".encode())

        error = inspect_error(stub.url)

        assert error.kind == ErrorKind.AUTH_FAILED
        assert (
            error.message
            == "The server rejected the credentials (401 Unauthorized); check the bearer token and headers."
        )
        assert stub.received[0]["Authorization"] == f"Bearer {TOKEN}"

    def test_it_reports_forbidden(self, http_stub: Callable[..., Stub]) -> None:
        stub = http_stub(403, content_type="application/json", body=b'{"error": "forbidden"}')

        error = inspect_error(stub.url)

        assert error.kind == ErrorKind.AUTH_FAILED
        assert (
            error.message == "The server rejected the credentials (403 Forbidden); check the bearer token and headers."
        )

    def test_a_refusal_without_credentials_says_none_were_sent(self, http_stub: Callable[..., Stub]) -> None:
        stub = http_stub(403, content_type="text/html", body=b"<html>Forbidden</html>")

        with pytest.raises(McpConnectionError) as caught:
            inspect_server(ServerConfig(transport="http", url=stub.url, connect_timeout=5))

        assert caught.value.kind == ErrorKind.AUTH_FAILED
        assert caught.value.message == (
            f"The server at {stub.url} refused access (403 Forbidden); no bearer token or headers are configured "
            "for it. If it needs credentials add them; otherwise check the URL points at an MCP endpoint."
        )
        assert "Authorization" not in stub.received[0]

    def test_it_reports_a_wrong_path(self, http_stub: Callable[..., Stub]) -> None:
        stub = http_stub(404)

        error = inspect_error(stub.url.replace("/mcp", "/api?key=abc"))

        assert error.kind == ErrorKind.NOT_FOUND
        assert error.message == (
            f"The server answered 404 Not Found for http://127.0.0.1:{stub.port}/api; check the URL path "
            "(MCP endpoints are often at /mcp)."
        )

    def test_it_reports_a_server_error(self, http_stub: Callable[..., Stub]) -> None:
        stub = http_stub(500)

        error = inspect_error(stub.url)

        assert error.kind == ErrorKind.HTTP_ERROR
        assert error.message == f"The server answered HTTP 500 for {stub.url}; the server failed; check its logs."

    def test_it_reports_a_web_page_instead_of_an_mcp_endpoint(self, http_stub: Callable[..., Stub]) -> None:
        stub = http_stub(200, content_type="text/html", body=b"<html>hello</html>")

        error = inspect_error(stub.url)

        assert error.kind == ErrorKind.PROTOCOL_ERROR
        assert error.message == (
            f"The server at {stub.url} answered with text/html, not an MCP response; check the URL points at the "
            "MCP endpoint."
        )

    def test_it_reports_https_to_a_plain_http_server(self, http_stub: Callable[..., Stub]) -> None:
        stub = http_stub(200)

        error = inspect_error(stub.url.replace("http://", "https://"))

        assert error.kind == ErrorKind.TLS_ERROR
        assert error.message == (
            f"The TLS handshake with 127.0.0.1:{stub.port} failed (WRONG_VERSION_NUMBER); if the server speaks "
            "plain HTTP use an http:// URL, otherwise check its certificate."
        )

    def test_sse_reports_rejected_credentials(self, http_stub: Callable[..., Stub]) -> None:
        stub = http_stub(401)
        config = ServerConfig(transport="sse", url=stub.url, bearer_token=TOKEN, connect_timeout=5)

        with pytest.raises(McpConnectionError) as caught:
            inspect_server(config)

        assert caught.value.kind == ErrorKind.AUTH_FAILED
        assert stub.received[0]["Authorization"] == f"Bearer {TOKEN}"

    def test_a_server_that_never_answers_times_out_within_the_connect_timeout(self) -> None:
        # A listening socket nobody accepts from: the TCP connect succeeds, no HTTP answer ever comes.
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(8)
            port = listener.getsockname()[1]
            started = time.monotonic()

            error = inspect_error(f"http://127.0.0.1:{port}/mcp", connect_timeout=1)

        assert error.kind == ErrorKind.CONNECT_TIMEOUT
        assert error.message == (
            f"Got no answer from 127.0.0.1:{port} within the connect timeout (1 s); check the URL and that the "
            "server is running and reachable."
        )
        assert time.monotonic() - started < 1 + 1.0

    def test_it_reports_a_server_that_goes_away_mid_session(self) -> None:
        process, port = start_demo("--http")
        config = ServerConfig(transport="http", url=f"http://127.0.0.1:{port}/mcp", connect_timeout=5)

        async def run() -> None:
            async with connect(config) as conn:
                assert (await conn.call_tool("wait", {"seconds": 0}))["isError"] is False
                stop(process)
                await conn.call_tool("wait", {"seconds": 0})

        # Transport failures over HTTP end the whole block; they surface where it exits.
        with pytest.raises(McpConnectionError) as caught:
            anyio.run(run)

        assert caught.value.kind == ErrorKind.CONNECTION_LOST
        assert caught.value.message == (
            f"The server at 127.0.0.1:{port} stopped accepting connections during the session (connection "
            "refused); did it stop or restart?"
        )

    def test_it_rejects_a_bad_url_before_connecting(self) -> None:
        with pytest.raises(McpConnectionError) as caught:
            inspect_server(ServerConfig(transport="http", url="localhost:8000/mcp"))

        assert caught.value.kind == ErrorKind.INVALID_CONFIG
        assert caught.value.message == "The URL must start with http:// or https:// and name a host."
