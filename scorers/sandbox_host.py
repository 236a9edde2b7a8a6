"""The sandbox host process: V8 runs there, never in the web or worker process, because a few inputs make
V8 abort its whole process (a string split into more elements than an array may hold, or an allocation burst
that reaches V8's own heap limit before the hard memory limit notices).

Both ends of the pipe are here. `serve()` is the host's main loop: one JSON request per line on stdin, one
JSON reply per line on stdout, each scoring in a fresh V8 context (`sandbox_engine.score`). `Host` is one such
process seen from the caller; `POOL` keeps idle hosts for reuse — a caller that finds none starts one, up to
MAX_HOSTS, else waits. A host that dies, stops answering or grows too large is killed or retired and a new
one is started on the next use. Hosts get an empty environment, so no secret of the caller reaches them.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

MAX_HOSTS = 4
# A host whose memory grew past this after a scoring (glibc keeps freed heap pages) asks to be replaced.
RECYCLE_RSS_BYTES = 768 * 1024 * 1024
_HOST_START_SECONDS = 30.0
_PROJECT_DIR = Path(__file__).resolve().parent.parent
_BOOT = f"import sys; sys.path.insert(0, {str(_PROJECT_DIR)!r}); from scorers.sandbox_host import serve; serve()"


# --- inside the host ---


def serve() -> None:
    """Main loop of the host process. Requests: {"op": "score", "code", "input" (JSON text), "limits"
    (SandboxLimits fields)}; replies: the engine's raw outcome plus "recycle".

    {"op": "run_code", ...} runs a code-mode program (runs/code_mode/engine.py): while it runs, the host may
    write {"tool_call": …} lines and reads one answer line for each (see `Host.converse`)."""
    from runs.code_mode.engine import run_program
    from scorers.sandbox_engine import raw_error, score, warm_up
    from scorers.sandbox_limits import ErrorKind, SandboxLimits

    replies = os.fdopen(os.dup(1), "wb")
    # Anything else that writes to stdout (V8 diagnostics) must not corrupt the protocol.
    os.dup2(2, 1)
    warm_up()
    replies.write(b'{"ready": true}\n')
    replies.flush()

    def ask(question: dict[str, Any]) -> Any:
        replies.write(json.dumps({"tool_call": question}).encode() + b"\n")
        replies.flush()
        return json.loads(sys.stdin.buffer.readline())

    while line := sys.stdin.buffer.readline():
        try:
            request = json.loads(line)
            limits = SandboxLimits(**request["limits"])
            if request.get("op") == "run_code":
                reply = run_program(request["code"], request["tools"], request["max_calls"], limits, ask)
            else:
                reply = score(request["code"], request["input"], limits)
        except Exception as error:  # a bug of ours must not end the host
            reply = raw_error(ErrorKind.SANDBOX_ERROR, f"The sandbox failed: {type(error).__name__}: {error}")
        reply["recycle"] = _rss_bytes() > RECYCLE_RSS_BYTES
        replies.write(json.dumps(reply).encode() + b"\n")
        replies.flush()
        if reply["recycle"]:
            return


def _rss_bytes() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


# --- the caller's side ---


class HostDied(Exception):
    def __init__(self, stderr: str) -> None:
        super().__init__("the sandbox host process died")
        self.stderr = stderr


class HostStuck(Exception):
    pass


class HostStartFailed(Exception):
    pass


class Host:
    """One sandbox host process, spoken to with one JSON line each way."""

    def __init__(self) -> None:
        try:
            # An empty environment: API keys and other secrets of this process stay out of the sandbox.
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-c", _BOOT],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env={},
                cwd=_PROJECT_DIR,
                start_new_session=True,
            )
        except OSError as error:
            raise HostStartFailed(f"The JavaScript sandbox process could not be started: {error}") from None
        self.retired = False
        self._buffer = b""
        self._stderr: deque[str] = deque(maxlen=60)
        threading.Thread(target=self._drain_stderr, name="sandbox-host-stderr", daemon=True).start()
        try:
            self._read_line(time.monotonic() + _HOST_START_SECONDS)
        except (HostDied, HostStuck):
            self.kill()
            tail = "\n".join(self.stderr.strip().splitlines()[-5:])
            raise HostStartFailed(f"The JavaScript sandbox process did not start: {tail}") from None

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    @property
    def stderr(self) -> str:
        return "".join(self._stderr)

    def request(self, payload: Mapping[str, Any], *, timeout: float) -> dict[str, Any]:
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(payload).encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died() from None
        return self._reply(self._read_line(time.monotonic() + timeout))

    def _reply(self, line: bytes) -> dict[str, Any]:
        try:
            reply = json.loads(line)
        except ValueError:
            reply = None
        if not isinstance(reply, dict):
            self.kill()
            raise HostDied(self.stderr)
        if reply.get("recycle"):
            self.retired = True
        return reply

    def converse(self, payload: Mapping[str, Any], answer: Callable[[Any], Any], *, timeout: float) -> dict[str, Any]:
        """Like `request`, for a request during which the host asks questions ({"tool_call": …} lines): each is
        answered with `answer`'s value. `timeout` applies to each wait for the host, not to the answers."""
        reply = self.request(payload, timeout=timeout)
        while "tool_call" in reply:
            assert self.process.stdin is not None
            try:
                response = answer(reply["tool_call"])
            except BaseException:
                # The host waits for an answer that will not come (the run was cancelled or timed out).
                self.kill()
                raise
            try:
                self.process.stdin.write(json.dumps(response).encode() + b"\n")
                self.process.stdin.flush()
            except (BrokenPipeError, OSError):
                raise self._died() from None
            reply = self._reply(self._read_line(time.monotonic() + timeout))
        return reply

    def kill(self) -> None:
        self.retired = True
        if self.alive:
            self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()

    def _read_line(self, deadline: float) -> bytes:
        assert self.process.stdout is not None
        descriptor = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise HostStuck
            ready, _, _ = select.select([descriptor], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(descriptor, 1 << 16)
            if not chunk:
                raise self._died()
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _died(self) -> HostDied:
        self.retired = True
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        time.sleep(0.05)  # let the stderr thread catch V8's last words
        return HostDied(self.stderr)

    def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._stderr.append(line.decode(errors="replace"))


class HostPool:
    """Idle hosts, reused; a caller finding none starts one, up to MAX_HOSTS, else waits."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._idle: list[Host] = []
        self._count = 0
        self._pid = os.getpid()
        self._condition = threading.Condition()

    @contextmanager
    def host(self) -> Iterator[Host]:
        with self._condition:
            if self._pid != os.getpid():
                # A forked child (Celery prefork) must not share its parent's pipes.
                self._idle, self._count, self._pid = [], 0, os.getpid()
            while not self._idle and self._count >= self.size:
                self._condition.wait()
            host = self._idle.pop() if self._idle else None
            if host is None:
                self._count += 1
        try:
            if host is None:
                host = Host()
        except BaseException:
            with self._condition:
                self._count -= 1
                self._condition.notify()
            raise
        try:
            yield host
        finally:
            keep = host.alive and not host.retired
            if not keep:
                host.kill()
            with self._condition:
                if keep:
                    self._idle.append(host)
                else:
                    self._count -= 1
                self._condition.notify()

    def close(self) -> None:
        with self._condition:
            idle, self._idle = self._idle, []
            self._count -= len(idle)
        for host in idle:
            host.kill()


POOL = HostPool(MAX_HOSTS)
atexit.register(POOL.close)
