"""Stdio servers left by a killed process: recorded at spawn, killed by the next sweep, never a stranger's pid."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from django.conf import settings

from evalhub.mcp_client import leftovers
from evalhub.mcp_client.config import ServerConfig
from evalhub.mcp_client.connection import connect
from tests.base import PROJECT_DIR, PYTHON, wait_until

from .helpers import FIXTURES, process_alive

STUBBORN_SERVER = "tests/runs/fixtures/stubborn_server.py"


@pytest.fixture
def records(tmp_path: Path) -> Iterator[Path]:
    """This process records its stdio servers under a directory of the test's own, for the test's duration."""
    directory = tmp_path / "stdio-servers"
    leftovers.track_in(directory)
    yield directory
    leftovers.track_in(settings.VAR_DIR / "stdio-servers")


@pytest.fixture
def owner(records: Path, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """A process that owns a stubborn server (ignores stdin EOF and SIGTERM) and is parked in a call to it."""
    pidfile = tmp_path / "server.pid"
    process = subprocess.Popen(
        [PYTHON, str(FIXTURES / "park_owner.py"), str(records), str(pidfile)],
        cwd=PROJECT_DIR,
        env={**os.environ, "PYTHONPATH": str(PROJECT_DIR)},
    )
    parked = Path(f"{pidfile}.parked")
    wait_until(lambda: parked.exists() or process.poll() is not None, timeout=30, what="the owner to park")
    assert process.poll() is None, "the owner exited; see its output above"
    server_pid = int(pidfile.read_text())
    yield process, server_pid
    process.kill()
    process.wait()
    if process_alive(server_pid):
        os.killpg(server_pid, signal.SIGKILL)


class LeftoverTests:
    def test_a_server_of_an_owner_killed_with_sigkill_outlives_it_until_the_next_sweep_kills_it(
        self, owner: tuple[subprocess.Popen[bytes], int], records: Path
    ) -> None:
        process, server_pid = owner
        record = json.loads((records / f"{server_pid}.json").read_text())
        assert (record["pgid"], record["owner_pid"]) == (server_pid, process.pid)

        process.kill()
        process.wait()

        # No cleanup ran in the owner, and the server ignored both stdin EOF and SIGTERM: it is still there.
        assert process_alive(server_pid)
        killed = leftovers.kill_leftovers()
        assert [(group.pgid, group.command) for group in killed] == [(server_pid, os.path.basename(PYTHON))]
        wait_until(lambda: not process_alive(server_pid), timeout=10, what="the leftover server to die")
        assert list(records.iterdir()) == []

    def test_a_server_whose_owner_is_alive_is_left_alone(
        self, owner: tuple[subprocess.Popen[bytes], int], records: Path
    ) -> None:
        _, server_pid = owner

        assert leftovers.kill_leftovers() == []

        assert process_alive(server_pid)
        assert [path.name for path in records.iterdir()] == [f"{server_pid}.json"]

    def test_a_recycled_pid_is_never_signalled(self, records: Path) -> None:
        stranger = subprocess.Popen([PYTHON, "-c", "import time; time.sleep(600)"], start_new_session=True)
        try:
            # The recorded group's leader was another process with this pid: its start time differs.
            record = {
                "pgid": stranger.pid,
                "leader_started": 1,
                "owner_pid": 999_999_999,
                "owner_started": 1,
                "host": os.uname().nodename,
                "boot_id": Path("/proc/sys/kernel/random/boot_id").read_text().strip(),
                "command": "python",
            }
            (records / f"{stranger.pid}.json").write_text(json.dumps(record))

            assert leftovers.kill_leftovers() == []

            assert process_alive(stranger.pid)
            assert list(records.iterdir()) == []
        finally:
            stranger.kill()
            stranger.wait()

    def test_a_server_stopped_by_its_owner_leaves_no_record(self, records: Path, tmp_path: Path) -> None:
        config = ServerConfig(
            transport="stdio", command=PYTHON, args=[STUBBORN_SERVER, str(tmp_path / "pid")], cwd=str(PROJECT_DIR)
        )

        async def list_tools() -> list[str]:
            async with connect(config) as conn:
                assert [path.name for path in records.iterdir()] == [f"{(tmp_path / 'pid').read_text()}.json"]
                return [tool["name"] for tool in await conn.list_tools()]

        assert anyio.run(list_tools) == ["park"]

        assert list(records.iterdir()) == []
        assert not process_alive(int((tmp_path / "pid").read_text()))
