from __future__ import annotations

import os
import signal
import subprocess
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client

from evalhub.celery import app as celery_app
from tests.base import PROJECT_DIR, PYTHON, child_env, make_alice, make_bob, make_charlie
from tests.evalhub.model_client.scripted_server import ScriptedServer

# Passwords are hashed at one iteration (tests/base.py says why); a deployment's hashers are Django's own.
settings.PASSWORD_HASHERS = ["tests.base.OneIterationPasswordHasher"]

# Each test session sends its tasks to a queue of its own, so a worker left running by `make run`
# on the same broker never steals them, and two sessions never see each other's tasks.
TEST_QUEUE = f"evalhub-test-{uuid.uuid4().hex[:8]}"
celery_app.conf.task_default_queue = TEST_QUEUE


# `.ci/run` runs the suite twice: on the embedded defaults, then on the production stack (EVALHUB_TEST_TIER=production:
# PostgreSQL and a Redis broker). The second run is there to prove what depends on those services; a test that
# touches neither the database nor the broker behaves the same on both, so it runs once, on the embedded tier.
# So do two kinds of tests whose subject is not the services: browser tests (what Chromium does with our pages:
# scripts, htmx, layout; every page they drive is also rendered on PostgreSQL by its feature's page tests, and every
# run they start is also run by a worker test there) and tests marked `once` (a third-party program is the subject).
DATABASE_FIXTURES = frozenset({"db", "transactional_db", "django_db_reset_sequences", "live_server"})


def touches_services(item: pytest.Item) -> bool:
    drives_chromium = "page" in getattr(item, "fixturenames", ())
    if drives_chromium or item.get_closest_marker("once"):
        return False
    uses_database = DATABASE_FIXTURES & set(getattr(item, "fixturenames", ()))
    marked = any(item.get_closest_marker(name) for name in ("django_db", "worker", "services"))
    return bool(uses_database or marked)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("EVALHUB_TEST_TIER") != "production":
        return
    once = [item for item in items if not touches_services(item)]
    if once:
        config.hook.pytest_deselected(items=once)
        items[:] = [item for item in items if touches_services(item)]


def pytest_report_header(config: pytest.Config) -> str | None:
    if os.environ.get("EVALHUB_TEST_TIER") == "production":
        return "production tier: tests that touch neither the database nor the broker ran on the embedded tier"
    return None


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
    """Kill the worker's process group at once. A test ends with its worker idle or its outcome already asserted, so
    Celery's warm shutdown would only add its wait (up to 2 s polling the filesystem broker, then its timer): 3 to 6 s
    per test. Shutdown itself is proven where it is the subject (tests/runs/test_worker_kill.py, test_serve.py)."""
    if process.poll() is None:
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
