from __future__ import annotations

import os
import signal
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from evalhub.celery import app as celery_app
from tests.base import PROJECT_DIR, PYTHON, child_env, make_alice, make_bob, make_charlie
from tests.evalhub.model_client.scripted_server import ScriptedServer

# Each test session sends its tasks to a queue of its own, so a worker left running by `make run`
# on the same broker never steals them, and two sessions never see each other's tasks.
TEST_QUEUE = f"evalhub-test-{uuid.uuid4().hex[:8]}"
celery_app.conf.task_default_queue = TEST_QUEUE


@pytest.fixture(scope="session", autouse=True)
def purge_test_queue() -> Iterator[None]:
    """Runs started by tests without a worker leave messages behind; drop them with the session's queue."""
    yield
    with celery_app.connection_for_write() as conn:
        channel = conn.default_channel
        try:
            channel.queue_purge(TEST_QUEUE)
            channel.queue_delete(TEST_QUEUE)
        except Exception:
            pass


@pytest.fixture
def alice(db: None) -> User:
    return make_alice()


@pytest.fixture
def bob(db: None) -> User:
    return make_bob()


@pytest.fixture
def charlie(db: None) -> User:
    return make_charlie()


@pytest.fixture
def alice_client(alice: User) -> Client:
    client = Client()
    client.force_login(alice)
    return client


@pytest.fixture
def bob_client(bob: User) -> Client:
    client = Client()
    client.force_login(bob)
    return client


def start_worker(log_path: Path, *flags: str) -> subprocess.Popen[bytes]:
    """A real Celery worker process on the configured broker and the test database, logging to `log_path`.

    Every worker of a session has the same name, as a worker restarted on the same machine has. Its pool is the
    default (threads, EVALHUB_WORKER_CONCURRENCY at once), as `celery -A evalhub worker` starts it, unless `flags`
    say otherwise.
    """
    with log_path.open("wb") as log:
        return subprocess.Popen(
            [
                PYTHON,
                "-m",
                "celery",
                "-A",
                "evalhub",
                "worker",
                "--without-mingle",
                "--without-gossip",
                "--loglevel=INFO",
                "-Q",
                TEST_QUEUE,
                "-n",
                f"{TEST_QUEUE}@%h",
                *flags,
            ],
            cwd=PROJECT_DIR,
            env=child_env(EVALHUB_CELERY_QUEUE=TEST_QUEUE),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def stop_worker(process: subprocess.Popen[bytes], log_path: Path) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    if os.environ.get("CI"):
        print(f"--- {log_path.name} ---\n{log_path.read_text(errors='replace')[-4000:]}")


@pytest.fixture
def workers(transactional_db: None, tmp_path: Path) -> Iterator[Callable[[], subprocess.Popen[bytes]]]:
    """Starts real worker processes on demand (one after another, e.g. to restart a killed one); stops them all."""
    started: list[tuple[subprocess.Popen[bytes], Path]] = []

    def start() -> subprocess.Popen[bytes]:
        log_path = tmp_path / f"worker-{len(started) + 1}.log"
        started.append((start_worker(log_path), log_path))
        return started[-1][0]

    try:
        yield start
    finally:
        for process, log_path in started:
            stop_worker(process, log_path)


@pytest.fixture
def worker(workers: Callable[[], subprocess.Popen[bytes]]) -> subprocess.Popen[bytes]:
    """A real Celery worker process on the configured broker and the test database."""
    return workers()


@pytest.fixture
def scripted() -> Iterator[ScriptedServer]:
    """A real OpenAI-compatible HTTP endpoint on 127.0.0.1 that answers from a script."""
    server = ScriptedServer()
    yield server
    server.close()
