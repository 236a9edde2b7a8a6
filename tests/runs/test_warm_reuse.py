"""Warm reuse of stdio servers: runs in this process, a real stdio server that reports its pid and its state."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from evalhub.mcp_client.config import ServerConfig
from evalhub.mcp_client.warm_pool import WARM_POOL, WarmPool
from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from runs import pipeline
from runs.models import Run
from runs.server_connection import pool_key
from runs.services import run_start
from tests.base import PROJECT_DIR, PYTHON, make_demo_server, make_scenario, wait_until

COUNTING_SERVER = "tests/runs/fixtures/counting_server.py"


@pytest.fixture(autouse=True)
def empty_pool() -> Iterator[None]:
    # Test databases reuse primary keys, so a process kept by one test must not serve the next.
    WARM_POOL.close()
    WARM_POOL.reopen()
    yield
    WARM_POOL.close()
    WARM_POOL.reopen()


def counting_server(**overrides: Any) -> McpServer:
    # Its tools have no side effects worth a warning: execution-level scenarios may call them.
    return make_demo_server(
        name="Counting", args=[COUNTING_SERVER], side_effects_acknowledged_at=timezone.now(), **overrides
    )


def call(server: McpServer, tool: str = "whoami") -> Scenario:
    return make_scenario(
        server,
        name=f"Call {tool}",
        level="execution",
        tool_call={"tool": tool, "arguments": {}},
        expected_tools=[tool],
    )


def execute(scenario: Scenario, user: User, **settings: Any) -> Run:
    run = run_start(scenario=scenario, user=user)
    if settings:
        Run.objects.filter(pk=run.pk).update(settings={**run.settings, **settings})
    pipeline.execute_run(run.pk, worker="test-worker")
    return Run.objects.get(pk=run.pk)


def whoami(run: Run) -> dict[str, int]:
    assert run.status == Run.Status.DONE, run.error
    (tool_call,) = run.tool_calls
    answer: dict[str, int] = tool_call["result"]["structuredContent"]
    return answer


def running_with(marker: str) -> bool:
    """Whether a live process has `marker` on its command line."""
    for entry in os.listdir("/proc"):
        if entry.isdigit() and alive(int(entry)):
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    if marker.encode() in cmdline.read():
                        return True
            except OSError:
                continue
    return False


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


@pytest.mark.django_db(transaction=True)
class WarmReuseTests:
    def test_two_runs_in_sequence_share_one_process_when_the_server_opts_in(self, alice: User) -> None:
        scenario = call(counting_server(warm_reuse=True))

        first, second = execute(scenario, alice), execute(scenario, alice)

        assert whoami(first)["pid"] == whoami(second)["pid"]
        # The state the first run left is what the second one saw: why only stateless servers opt in.
        assert [whoami(first)["calls"], whoami(second)["calls"]] == [1, 2]
        assert first.server_start is not None and first.server_start["ms"] > 0
        assert {k: v for k, v in first.server_start.items() if k != "ms"} == {
            "transport": "stdio",
            "warm": False,
            "use": 1,
            "recycleAfter": 20,
        }
        assert second.server_start == {"ms": 0, "transport": "stdio", "warm": True, "use": 2, "recycleAfter": 20}
        assert first.passed and second.passed

    def test_without_opting_in_every_run_starts_its_own_process(self, alice: User) -> None:
        scenario = call(counting_server())

        first, second = execute(scenario, alice), execute(scenario, alice)

        assert whoami(first)["pid"] != whoami(second)["pid"]
        assert [whoami(first)["calls"], whoami(second)["calls"]] == [1, 1]
        assert first.server_start is not None and first.server_start["warm"] is False
        assert "use" not in first.server_start
        assert WARM_POOL.idle() == []
        assert not alive(whoami(first)["pid"])

    def test_a_process_lent_to_a_running_run_is_not_lent_to_another(self, alice: User) -> None:
        server = counting_server(warm_reuse=True)
        asking = call(server)
        warmed = whoami(execute(asking, alice))["pid"]  # one idle process, which the hanging run takes
        hanging = run_start(scenario=call(server, "hang"), user=alice)
        Run.objects.filter(pk=hanging.pk).update(settings={**hanging.settings, "time_limit_seconds": 5})
        thread = threading.Thread(target=pipeline.execute_run, args=(hanging.pk,), kwargs={"worker": "test-worker"})
        thread.start()
        try:
            wait_until(
                lambda: Run.objects.filter(pk=hanging.pk, phase="tool call hang").exists(),
                timeout=30,
                what="the hanging run to call its tool",
            )

            other = execute(asking, alice)
        finally:
            thread.join(timeout=60)

        assert whoami(other)["pid"] != warmed and whoami(other)["calls"] == 1
        assert other.server_start is not None and other.server_start["warm"] is False
        hanging.refresh_from_db()
        assert hanging.server_start is not None and hanging.server_start["warm"] is True

    def test_a_process_is_recycled_after_its_number_of_runs(self, alice: User) -> None:
        scenario = call(counting_server(warm_reuse=True, warm_recycle_after=2))

        runs = [execute(scenario, alice) for _ in range(3)]

        pids = [whoami(run)["pid"] for run in runs]
        assert pids[0] == pids[1] != pids[2]
        assert [whoami(run)["calls"] for run in runs] == [1, 2, 1]
        assert [run.server_start["use"] for run in runs if run.server_start] == [1, 2, 1]
        wait_until(lambda: not alive(pids[0]), timeout=10, what="the recycled server to stop")

    def test_a_tool_error_recycles_the_process(self, alice: User) -> None:
        server = counting_server(warm_reuse=True)
        failed = execute(call(server, "fail"), alice)
        assert failed.tool_calls[0]["isError"] is True

        after = execute(call(server), alice)

        assert whoami(after)["calls"] == 1  # a fresh process: nothing the failed run did is left
        assert after.server_start is not None and after.server_start["warm"] is False

    def test_a_run_that_hits_its_time_limit_does_not_give_its_process_back(self, alice: User) -> None:
        server = counting_server(warm_reuse=True)
        timed_out = execute(call(server, "hang"), alice, time_limit_seconds=1)
        assert timed_out.stop_reason == Run.StopReason.TIME_LIMIT

        after = execute(call(server), alice)

        assert whoami(after)["calls"] == 1
        assert after.server_start is not None and after.server_start["warm"] is False

    def test_a_cancelled_runs_process_is_not_reused(self, alice: User) -> None:
        server = counting_server(warm_reuse=True)
        cancelled = run_start(scenario=call(server, "hang"), user=alice)
        worker = threading.Thread(target=pipeline.execute_run, args=(cancelled.pk,), kwargs={"worker": "test-worker"})
        worker.start()
        # Cancelled once the lent process is in its call: the cancel cuts the call off (runs/cancelling.py).
        wait_until(
            lambda: Run.objects.filter(pk=cancelled.pk, phase="tool call hang").exists(),
            timeout=30,
            what="the run to be in its tool call",
        )
        Run.objects.filter(pk=cancelled.pk).update(cancel_requested=True)
        worker.join(timeout=30)
        cancelled.refresh_from_db()
        assert cancelled.stop_reason == Run.StopReason.CANCELLED
        assert cancelled.server_start is not None and cancelled.server_start["use"] == 1
        assert WARM_POOL.idle() == []

        after = execute(call(server), alice)

        assert after.server_start is not None and after.server_start["warm"] is False

    def test_a_server_that_died_while_idle_is_not_lent(self, alice: User) -> None:
        scenario = call(counting_server(warm_reuse=True))
        pid = whoami(execute(scenario, alice))["pid"]
        os.killpg(pid, 9)
        wait_until(lambda: not alive(pid), timeout=10, what="the idle server to die")

        after = execute(scenario, alice)

        assert whoami(after)["pid"] != pid and after.passed

    def test_an_edited_server_gets_new_processes(self, alice: User) -> None:
        server = counting_server(warm_reuse=True)
        scenario = call(server)
        before = execute(scenario, alice)
        server.env = {"EDITED": "1"}
        server.save()

        after = execute(scenario, alice)

        assert whoami(after)["pid"] != whoami(before)["pid"]

    def test_the_demo_scenario_passes_on_a_warm_server(self, alice: User) -> None:
        scenario = make_scenario(make_demo_server(warm_reuse=True))

        runs = [execute(scenario, alice) for _ in range(2)]

        assert [(run.status, run.passed) for run in runs] == [("done", True), ("done", True)]
        assert [run.server_start["warm"] for run in runs if run.server_start] == [False, True]


@pytest.mark.worker
class WarmWorkerTests:
    def test_a_workers_runs_share_a_warm_server_that_stops_with_the_worker(
        self, workers: Callable[[], subprocess.Popen[bytes]], alice: User
    ) -> None:
        worker = workers()
        scenario = call(counting_server(warm_reuse=True))

        def finished(run: Run) -> Run:
            wait_until(
                lambda: Run.objects.filter(pk=run.pk, status__in=Run.FINISHED).exists(),
                timeout=60,
                what="the worker to finish the run",
            )
            return Run.objects.get(pk=run.pk)

        first = finished(run_start(scenario=scenario, user=alice))
        second = finished(run_start(scenario=scenario, user=alice))

        pid = whoami(first)["pid"]
        assert whoami(second) == {"pid": pid, "calls": 2}
        assert alive(pid)
        os.killpg(worker.pid, signal.SIGTERM)  # the worker's own group: the server has a group of its own
        worker.wait(timeout=30)
        assert not alive(pid)


def config() -> ServerConfig:
    return ServerConfig(transport="stdio", command=PYTHON, args=[COUNTING_SERVER], cwd=str(PROJECT_DIR))


class WarmPoolTests:
    """The pool alone, without runs: leases from several event loops, as the worker's runs take them."""

    def test_a_process_is_never_lent_to_two_runs_at_once(self) -> None:
        pool = WarmPool()
        held, release = threading.Event(), threading.Event()
        pids: dict[str, int | None] = {}

        async def hold_one() -> None:
            async with pool.lease(config(), key="k", recycle_after=20) as lease:
                pids["first"] = lease.pid
                held.set()
                await anyio.to_thread.run_sync(release.wait)

        async def take_another() -> None:
            async with pool.lease(config(), key="k", recycle_after=20) as lease:
                pids["second"] = lease.pid
                assert lease.warm is False
                await lease.conn.call_tool("whoami")

        holder = threading.Thread(target=anyio.run, args=(hold_one,))
        holder.start()
        try:
            assert held.wait(timeout=30)
            anyio.run(take_another)
        finally:
            release.set()
            holder.join(timeout=30)

        assert pids["first"] != pids["second"]
        assert sorted(pool.idle("k")) == sorted([pids["first"], pids["second"]])
        pool.close()
        assert pool.idle() == []
        wait_until(lambda: not any(alive(pid) for pid in pids.values() if pid), timeout=10, what="the pool to close")

    def test_a_run_on_another_loop_calls_tools_on_the_lent_process(self) -> None:
        pool = WarmPool()

        async def run_once() -> dict[str, Any]:
            async with pool.lease(config(), key="k", recycle_after=20) as lease:
                result = await lease.conn.call_tool("whoami")
                return dict(result["structuredContent"] or {})

        try:
            first, second = anyio.run(run_once), anyio.run(run_once)
        finally:
            pool.close()
        assert first["pid"] == second["pid"] and [first["calls"], second["calls"]] == [1, 2]

    def test_a_lease_left_by_an_exception_closes_its_process(self) -> None:
        pool = WarmPool()

        async def fail_inside() -> int | None:
            with pytest.raises(RuntimeError):
                async with pool.lease(config(), key="k", recycle_after=20) as lease:
                    raise RuntimeError("the run's own bug")
            return lease.pid

        pid = anyio.run(fail_inside)
        assert pool.idle() == []
        assert pid is not None
        wait_until(lambda: not alive(pid), timeout=10, what="the server to stop")
        pool.close()

    def test_a_run_that_gives_up_while_its_server_starts_leaves_no_process(self) -> None:
        pool = WarmPool()
        marker = uuid.uuid4().hex
        silent = ServerConfig(
            transport="stdio",
            command=PYTHON,
            args=["tests/evalhub/mcp_client/fixtures/silent.py", marker],
            cwd=str(PROJECT_DIR),
        )

        async def give_up() -> None:
            with anyio.fail_after(1):
                async with pool.lease(silent, key="k", recycle_after=20):
                    raise AssertionError("the silent server never finishes its handshake")

        with pytest.raises(TimeoutError):
            anyio.run(give_up)

        assert pool.idle() == [] and pool.started == 0
        wait_until(lambda: not running_with(marker), timeout=10, what="the half-started server to stop")
        pool.close()

    def test_keys_do_not_share_processes(self) -> None:
        pool = WarmPool()

        async def lease_pid(key: str) -> int | None:
            async with pool.lease(config(), key=key, recycle_after=20) as lease:
                return lease.pid

        try:
            assert anyio.run(lease_pid, "a") != anyio.run(lease_pid, "b")
        finally:
            pool.close()

    def test_pool_key_names_the_server_and_hides_the_settings(self) -> None:
        server = McpServer(pk=7, transport="stdio", command=PYTHON)
        secret = ServerConfig(transport="stdio", command=PYTHON, env={"TOKEN": "s3cret"})
        key = pool_key(server, secret)
        assert key.startswith("7:") and "s3cret" not in key
        assert key != pool_key(server, ServerConfig(transport="stdio", command=PYTHON, env={"TOKEN": "other"}))
