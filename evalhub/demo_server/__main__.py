"""python -m evalhub.demo_server [--http | --sse] [--port N] [--mode broken-weather]

stdio by default. --http serves Streamable HTTP at http://127.0.0.1:N/mcp, --sse the legacy SSE transport
at http://127.0.0.1:N/sse; both bind to loopback only.
"""

from __future__ import annotations

import argparse
import sys

from evalhub.demo_server.server import MODES, build_server

HOST = "127.0.0.1"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m evalhub.demo_server", description="EvalHub's demo MCP server.")
    transport = parser.add_mutually_exclusive_group()
    transport.add_argument("--http", action="store_true", help="serve Streamable HTTP on /mcp instead of stdio")
    transport.add_argument("--sse", action="store_true", help="serve the legacy SSE transport on /sse")
    parser.add_argument("--port", type=int, default=8765, help="port for --http/--sse (default 8765)")
    parser.add_argument(
        "--mode", choices=MODES, default="normal", help="broken-weather: get_weather fails every call (for experiments)"
    )
    options = parser.parse_args(argv)

    server = build_server(options.mode)
    if options.http:
        print(f"Demo travel server: http://{HOST}:{options.port}/mcp", file=sys.stderr, flush=True)
        server.run("streamable-http", host=HOST, port=options.port, streamable_http_path="/mcp")
    elif options.sse:
        print(f"Demo travel server: http://{HOST}:{options.port}/sse", file=sys.stderr, flush=True)
        server.run("sse", host=HOST, port=options.port)
    else:
        server.run("stdio")


if __name__ == "__main__":
    main()
