"""A local OTLP/HTTP collector for tests: it decodes each POST to /v1/traces with the OpenTelemetry protobuf."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


class Collector:
    def __init__(self, *, status: int = 200) -> None:
        self.received: list[tuple[str, dict[str, str], ExportTraceServiceRequest]] = []
        self.arrived = threading.Event()
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                request = ExportTraceServiceRequest.FromString(body)
                collector.received.append((self.path, {k.lower(): v for k, v in self.headers.items()}, request))
                answer = ExportTraceServiceResponse().SerializeToString()
                self.send_response(status)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)
                collector.arrived.set()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._http.daemon_threads = True
        self._thread = threading.Thread(target=self._http.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self._http.server_address[1]}"

    def close(self) -> None:
        self._http.shutdown()
        self._http.server_close()
