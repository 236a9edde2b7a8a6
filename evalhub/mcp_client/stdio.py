"""Our own stdio transport: spawn the server, bridge its pipes to the SDK's streams, kill its process group.

The SDK's `stdio_client` also starts the server in a new session, but it hides the process: we could not read
its exit code, capture stderr in memory, or kill grandchildren left behind by a leader that exited cleanly (it
only signals the group when the leader outlives the grace period). This module yields the same
`(read_stream, write_stream)` pair, so `mcp.Client` drives it like any other transport.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import TYPE_CHECKING

import anyio
import mcp_types
from anyio.abc import AsyncResource
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from evalhub.mcp_client import leftovers
from evalhub.mcp_client.config import ServerConfig
from evalhub.mcp_client.environment import child_environment
from evalhub.mcp_client.errors import ErrorKind, McpConnectionError
from evalhub.mcp_client.process import StdioState, close_transport, terminate_group

if TYPE_CHECKING:
    # The SDK's (read_stream, write_stream) pair; only a private SDK module names the type.
    from mcp.client._transport import TransportStreams

# A single JSON-RPC message larger than this is a broken server, not a big result; stop buffering it.
MAX_LINE_BYTES = 32 * 1024 * 1024
# After a clean close of stdin the spec lets the server exit on its own; give it this long before SIGTERM.
SHUTDOWN_GRACE = 1.0
# Once the server has exited, how long its stdout may stay open (its last lines still arriving) before EvalHub
# stops waiting for EOF: a child it started may hold the pipe open for as long as it lives.
EXIT_DRAIN_SECONDS = 0.5


@asynccontextmanager
async def stdio_transport(config: ServerConfig, state: StdioState) -> AsyncIterator[TransportStreams]:
    env = child_environment(config.env)
    process = await _spawn(config, env, state)
    state.process = process
    # Recorded until it is stopped below: if this process is killed first, the next worker start kills it.
    leftovers.remember(process.pid, config.command)
    assert process.stdin and process.stdout and process.stderr

    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)
    stderr_done = anyio.Event()
    stdout_done = anyio.Event()

    async def deliver(line: bytes) -> None:
        line = line.strip()
        if not line:
            return
        try:
            message = mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except (ValidationError, ValueError):
            # Not fatal: many servers print a banner. The line explains a later failure if there is one.
            state.note_noise(line)
            return
        with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await read_writer.send(SessionMessage(message))

    async def read_stdout() -> None:
        assert process.stdout
        buffer = bytearray()
        try:
            async for chunk in process.stdout:
                buffer += chunk
                while (newline := buffer.find(b"\n")) >= 0:
                    line = bytes(buffer[:newline])
                    del buffer[: newline + 1]
                    await deliver(line)
                if len(buffer) > MAX_LINE_BYTES:
                    state.oversized = True
                    break
            await deliver(bytes(buffer))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            # EOF: the session fails pending requests with CONNECTION_CLOSED instead of waiting for a timeout.
            read_writer.close()
            stdout_done.set()

    async def watch_exit() -> None:
        # A server that dies while a child of its own still holds its stdout gives no EOF: its exit must end the
        # session all the same (its last lines first), or a pending call would wait for its request timeout.
        await process.wait()
        with anyio.move_on_after(EXIT_DRAIN_SECONDS):
            await stdout_done.wait()
        read_writer.close()

    async def read_stderr() -> None:
        assert process.stderr
        try:
            async for chunk in process.stderr:
                state.stderr.feed(chunk)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        finally:
            stderr_done.set()

    async def write_stdin() -> None:
        assert process.stdin
        try:
            async with write_reader:
                async for message in write_reader:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await process.stdin.send(data.encode())
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            # The server stopped reading (usually it died): fail pending requests now.
            read_writer.close()

    graceful = True
    async with anyio.create_task_group() as tg:
        tg.start_soon(read_stdout)
        tg.start_soon(read_stderr)
        tg.start_soon(write_stdin)
        tg.start_soon(watch_exit)
        try:
            yield read_stream, write_stream
        except BaseException:
            graceful = False
            raise
        finally:
            # Must finish even when the caller is cancelled, or the server would outlive us; every wait is bounded.
            with anyio.CancelScope(shield=True):
                write_stream.close()
                await _close_quietly(process.stdin)
                await terminate_group(process, grace=SHUTDOWN_GRACE if graceful else 0.0)
                leftovers.forget(process.pid)
                # The last words of a crashing server are usually the most useful stderr lines.
                with anyio.move_on_after(0.5):
                    await stderr_done.wait()
                for resource in (process.stdout, process.stderr, read_stream, read_writer):
                    await _close_quietly(resource)
                close_transport(process)
            tg.cancel_scope.cancel()


async def _spawn(config: ServerConfig, env: dict[str, str], state: StdioState) -> anyio.abc.Process:
    command = config.command
    if config.cwd is not None and not os.path.isdir(config.cwd):
        raise McpConnectionError(
            ErrorKind.SPAWN_FAILED,
            state.redact(f"The working directory {config.cwd!r} does not exist; fix the server's working directory."),
        )
    try:
        # No shell: command and args go to execve as they are, so nothing in them is interpreted.
        return await anyio.open_process(
            [command, *config.args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=config.cwd,
            env=env,
            start_new_session=True,
        )
    except FileNotFoundError:
        if os.sep in command:
            message = f"The command {command!r} does not exist; check the path."
        elif shutil.which(command, path=env.get("PATH")) is None:
            message = (
                f"The command {command!r} was not found on PATH; install it on the machine running EvalHub "
                "or give its absolute path."
            )
        else:
            message = (
                f"The command {command!r} exists but could not be started; check its interpreter line (#!) "
                "points to an installed program."
            )
        raise McpConnectionError(ErrorKind.COMMAND_NOT_FOUND, state.redact(message)) from None
    except PermissionError:
        message = f"The command {command!r} could not be run (permission denied); check that it is executable."
        raise McpConnectionError(ErrorKind.SPAWN_FAILED, state.redact(message)) from None
    except (OSError, ValueError) as exc:
        message = f"The command {command!r} could not be started ({exc}); check the command and its arguments."
        raise McpConnectionError(ErrorKind.SPAWN_FAILED, state.redact(message)) from None


async def _close_quietly(resource: AsyncResource | None) -> None:
    if resource is None:
        return
    with suppress(Exception):
        await resource.aclose()
