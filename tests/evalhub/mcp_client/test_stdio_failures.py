"""stdio servers that fail in every way we promise to explain, each a real process."""

from __future__ import annotations

import time
from pathlib import Path

import anyio
import pytest

from evalhub.mcp_client import ErrorKind, McpConnectionError, ServerConfig, connect, inspect_server

from .helpers import demo_stdio_config, fixture_config, process_alive


def inspect_error(config: ServerConfig) -> McpConnectionError:
    with pytest.raises(McpConnectionError) as caught:
        inspect_server(config)
    return caught.value


class StartupFailureTests:
    def test_it_reports_a_missing_command(self) -> None:
        error = inspect_error(ServerConfig(transport="stdio", command="evalhub-no-such-server", args=["--x"]))

        assert error.kind == ErrorKind.COMMAND_NOT_FOUND
        assert error.message == (
            "The command 'evalhub-no-such-server' was not found on PATH; install it on the machine running "
            "EvalHub or give its absolute path."
        )

    def test_it_reports_a_missing_absolute_path(self) -> None:
        error = inspect_error(ServerConfig(transport="stdio", command="/nonexistent/bin/server"))

        assert error.kind == ErrorKind.COMMAND_NOT_FOUND
        assert error.message == "The command '/nonexistent/bin/server' does not exist; check the path."

    def test_it_reports_a_missing_working_directory(self) -> None:
        error = inspect_error(fixture_config("silent.py", cwd="/nonexistent/dir"))

        assert error.kind == ErrorKind.SPAWN_FAILED
        assert "working directory '/nonexistent/dir' does not exist" in error.message

    def test_it_reports_the_exit_code_and_stderr_of_a_server_that_quits(self) -> None:
        error = inspect_error(fixture_config("exit_early.py"))

        assert error.kind == ErrorKind.SERVER_EXITED
        assert error.message == (
            "The server exited with code 3 during start-up, before completing the MCP handshake; its stderr "
            "output usually says why."
        )
        assert error.stderr_tail.splitlines() == [
            "starting tiny-server 0.1",
            "error: upstream rejected token <unset>",
        ]

    def test_it_reports_non_json_on_stdout(self) -> None:
        started = time.monotonic()
        error = inspect_error(fixture_config("garbage_stdout.py", connect_timeout=1.0))

        assert error.kind == ErrorKind.INVALID_OUTPUT
        assert error.message == (
            "The server wrote non-JSON text to stdout ('Welcome to FancyServer 2.0! Listening...') and did not "
            "complete the MCP handshake within 1 s; stdio servers must write only JSON-RPC messages to stdout "
            "and send logs to stderr."
        )
        assert time.monotonic() - started < 1.0 + 2.0

    def test_it_gives_up_on_a_server_that_never_answers_initialize(self) -> None:
        started = time.monotonic()
        error = inspect_error(fixture_config("silent.py", connect_timeout=1.0))
        elapsed = time.monotonic() - started

        assert error.kind == ErrorKind.CONNECT_TIMEOUT
        assert error.message == (
            "The server started but did not answer the MCP initialize request within the connect timeout (1 s); "
            "check that the command starts an MCP server speaking stdio."
        )
        assert error.stderr_tail == "silent: waiting"
        assert 1.0 <= elapsed < 1.0 + 2.0

    def test_an_inspection_of_a_server_that_hangs_after_the_handshake_stays_within_the_connect_timeout(self) -> None:
        started = time.monotonic()
        # 5 s: the handshake must fit inside the budget even when the machine is busy (the server imports the SDK).
        error = inspect_error(fixture_config("tiny_server.py", "--hang", "tools/list", connect_timeout=5.0))
        elapsed = time.monotonic() - started

        assert error.kind == ErrorKind.REQUEST_TIMEOUT
        assert error.message == (
            "The server completed the handshake but did not answer tools/list within the inspection budget "
            "(the connect timeout, 5 s)."
        )
        assert 5.0 <= elapsed < 5.0 + 2.0


class PaginationTests:
    def test_it_follows_every_page(self) -> None:
        inspection = inspect_server(fixture_config("paged_server.py"))

        assert [t["name"] for t in inspection.tools] == [f"tool_{i}" for i in range(5)]

    def test_it_stops_on_a_cursor_that_repeats(self) -> None:
        error = inspect_error(fixture_config("paged_server.py", "--loop"))

        assert error.kind == ErrorKind.PROTOCOL_ERROR
        assert error.message == "The server's tools/list repeated a page cursor, so it would never end."


class MidSessionFailureTests:
    def test_it_reports_a_server_that_dies_during_a_tool_call(self) -> None:
        async def run() -> McpConnectionError:
            async with connect(fixture_config("tiny_server.py")) as conn:
                assert (await conn.call_tool("echo", {"text": "hi"}))["isError"] is False
                with pytest.raises(McpConnectionError) as caught:
                    await conn.call_tool("crash")
                return caught.value

        error = anyio.run(run)

        assert error.kind == ErrorKind.SERVER_CRASHED
        assert error.message == (
            "The server process exited with code 7 during the call to tool 'crash'; its stderr output usually says why."
        )
        assert "tiny: about to crash hard" in error.stderr_tail

    def test_a_crash_is_noticed_while_a_child_still_holds_the_servers_stdout(self, tmp_path: Path) -> None:
        # The grandchild inherited the server's stdout, so the pipe gives no EOF when the server dies: before, the
        # call waited for its request timeout (60 s here) and was reported as a timeout.
        pidfile = tmp_path / "pids"
        config = fixture_config("tiny_server.py", "--grandchild", str(pidfile), request_timeout=60.0)

        async def run() -> McpConnectionError:
            async with connect(config) as conn:
                with pytest.raises(McpConnectionError) as caught:
                    await conn.call_tool("crash")
                return caught.value

        started = time.monotonic()
        error = anyio.run(run)

        assert time.monotonic() - started < 15
        assert (error.kind, error.stderr_tail) == (ErrorKind.SERVER_CRASHED, "tiny: about to crash hard")
        assert error.message == (
            "The server process exited with code 7 during the call to tool 'crash'; its stderr output usually says why."
        )
        server_pid, grandchild_pid = map(int, pidfile.read_text().split())
        assert not process_alive(server_pid) and not process_alive(grandchild_pid)

    def test_a_crash_escapes_the_connection_block_unwrapped(self) -> None:
        async def run() -> None:
            async with connect(fixture_config("tiny_server.py")) as conn:
                await conn.call_tool("crash")

        with pytest.raises(McpConnectionError) as caught:
            anyio.run(run)

        assert caught.value.kind == ErrorKind.SERVER_CRASHED

    def test_a_slow_call_times_out_and_the_connection_stays_usable(self) -> None:
        async def run() -> tuple[McpConnectionError, dict[str, object]]:
            async with connect(demo_stdio_config()) as conn:
                with pytest.raises(McpConnectionError) as caught:
                    await conn.call_tool("wait", {"seconds": 5}, timeout=0.3)
                after = await conn.call_tool("wait", {"seconds": 0})
                return caught.value, dict(after)

        error, after = anyio.run(run)

        assert error.kind == ErrorKind.REQUEST_TIMEOUT
        assert error.message == "The server did not answer the call to tool 'wait' within the request timeout (0.3 s)."
        assert after["structuredContent"] == {"waited_seconds": 0}

    def test_the_callers_own_exceptions_come_out_unchanged(self) -> None:
        async def run() -> None:
            async with connect(demo_stdio_config()):
                raise KeyError("mine")

        with pytest.raises(KeyError, match="mine"):
            anyio.run(run)


class NoOrphansTests:
    def test_a_hung_server_and_its_grandchild_are_killed_after_a_timeout(self, tmp_path: Path) -> None:
        pidfile = tmp_path / "pids"
        started = time.monotonic()
        error = inspect_error(fixture_config("spawn_and_hang.py", str(pidfile), connect_timeout=1.0))
        elapsed = time.monotonic() - started

        assert error.kind == ErrorKind.CONNECT_TIMEOUT
        server_pid, grandchild_pid = map(int, pidfile.read_text().split())
        # Both ignore SIGTERM, so this also proves the SIGKILL escalation.
        assert not process_alive(server_pid)
        assert not process_alive(grandchild_pid)
        assert elapsed < 1.0 + 3.0

    def test_a_grandchild_dies_even_when_the_server_exits_cleanly(self, tmp_path: Path) -> None:
        pidfile = tmp_path / "pids"
        inspection = inspect_server(fixture_config("tiny_server.py", "--grandchild", str(pidfile)))

        assert inspection.server_name == "tiny"
        server_pid, grandchild_pid = map(int, pidfile.read_text().split())
        assert not process_alive(server_pid)
        assert not process_alive(grandchild_pid)

    def test_a_cancelled_caller_leaves_no_process_behind(self, tmp_path: Path) -> None:
        pidfile = tmp_path / "pids"

        async def run() -> None:
            with anyio.move_on_after(1.0):
                async with connect(fixture_config("spawn_and_hang.py", str(pidfile))):
                    pass

        anyio.run(run)

        server_pid, grandchild_pid = map(int, pidfile.read_text().split())
        assert not process_alive(server_pid)
        assert not process_alive(grandchild_pid)
