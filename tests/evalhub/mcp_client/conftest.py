"""Fixtures for the MCP layer tests: the demo server over HTTP and SSE, and tiny fixed-status HTTP servers."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .helpers import Stub, free_port, start_demo, stop


@pytest.fixture(scope="session")
def demo_http_url() -> Iterator[str]:
    process, port = start_demo("--http")
    yield f"http://127.0.0.1:{port}/mcp"
    stop(process)


@pytest.fixture(scope="session")
def demo_sse_url() -> Iterator[str]:
    process, port = start_demo("--sse")
    yield f"http://127.0.0.1:{port}/sse"
    stop(process)


@pytest.fixture
def http_stub() -> Iterator[Callable[..., Stub]]:
    servers: list[http.server.ThreadingHTTPServer] = []

    def start(
        status: int, content_type: str = "text/plain", body: bytes = b"nope", headers: dict[str, str] | None = None
    ) -> Stub:
        port = free_port()
        stub = Stub(url=f"http://127.0.0.1:{port}/mcp", port=port)

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                self.rfile.read(length)
                stub.received.append(dict(self.headers))
                stub.paths.append(self.path)
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(body)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_DELETE = _answer

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        servers.append(server)
        return stub

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()
