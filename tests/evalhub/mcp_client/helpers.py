"""Helpers for the MCP layer tests: free ports, the demo server as a subprocess, fixture-server configs."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalhub.mcp_client import ServerConfig

FIXTURES = Path(__file__).resolve().parent / "fixtures"
PROJECT_DIR = Path(__file__).resolve().parents[3]
PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    """Poll until something accepts connections on the port; fail early if the process died."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"server exited with {process.returncode} before listening on {port}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise AssertionError(f"nothing listened on port {port} within {timeout} s")


def demo_stdio_config(**overrides: Any) -> ServerConfig:
    values: dict[str, Any] = {
        "transport": "stdio",
        "command": PYTHON,
        "args": ["-m", "evalhub.demo_server"],
        "cwd": str(PROJECT_DIR),
        "connect_timeout": 20.0,
        "request_timeout": 10.0,
    }
    return ServerConfig(**(values | overrides))


def fixture_config(script: str, *args: str, **overrides: Any) -> ServerConfig:
    values: dict[str, Any] = {
        "transport": "stdio",
        "command": PYTHON,
        "args": [str(FIXTURES / script), *args],
        "connect_timeout": 20.0,
        "request_timeout": 10.0,
    }
    return ServerConfig(**(values | overrides))


def start_demo(flag: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    process = subprocess.Popen(
        [PYTHON, "-m", "evalhub.demo_server", flag, "--port", str(port)],
        cwd=PROJECT_DIR,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
    except BaseException:
        process.kill()
        process.wait()
        raise
    return process, port


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@dataclass
class Stub:
    """A plain-HTTP server answering every request with one fixed response; remembers the headers it got."""

    url: str
    port: int
    received: list[dict[str, str]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)


def process_alive(pid: int) -> bool:
    """True while the pid exists and is not a zombie (a zombie has exited; only its parent has not reaped it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    state = stat.rpartition(")")[2].split()[0]
    return state not in ("Z", "X")


@contextmanager
def silent_endpoint() -> Iterator[str]:
    """The URL of an HTTP endpoint on 127.0.0.1 that accepts connections and reads requests but never answers."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return  # closed: the test is over
            held.append(conn)

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/mcp"
    finally:
        listener.close()
        for conn in held:
            conn.close()
