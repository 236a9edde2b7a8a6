"""Shared test setup: the named users every test module talks about, and helpers for real worker processes."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.contrib.auth.models import User
from django.db import connection

from evalhub.providers.models import Provider, offline_provider
from evalhub.scenarios.models import Scenario
from evalhub.servers.models import McpServer
from tests.evalhub.mcp_client.helpers import free_port  # noqa: F401 — one definition, shared by every test package
from tests.evalhub.model_client.scripted_server import API_KEY as SCRIPTED_API_KEY

PROJECT_DIR = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
PASSWORD = "correct-horse-battery-staple"


class OneIterationPasswordHasher(PBKDF2PasswordHasher):
    """Django's PBKDF2 at one iteration, for tests only (tests/conftest.py). A user's password is hashed when they
    are created, and alice, bob or charlie is created in most tests: at Django's 1,000,000 iterations that was 61 %
    of the CPU of a sampled run of page and run tests (py-spy). The hash names its algorithm and iteration count,
    so a child process (a worker, a web server) verifies it with Django's own hashers."""

    iterations = 1


def make_alice() -> User:
    """The owner: staff, may register stdio servers and manage everything."""
    return User.objects.create_user("alice", "alice@example.com", PASSWORD, is_staff=True)


def make_bob() -> User:
    """A read-only member: logged in, not staff."""
    return User.objects.create_user("bob", "bob@example.com", PASSWORD)


def make_charlie() -> User:
    """An outsider: an account with no rights; tests use him for "not yours" checks."""
    return User.objects.create_user("charlie", "charlie@example.com", PASSWORD)


def wait_until(condition: Callable[[], Any], *, timeout: float, what: str) -> Any:
    """Poll `condition` until it returns something truthy; fail with `what` if it never does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.05)
    raise AssertionError(f"Timed out after {timeout:.0f} s waiting for {what}")


def database_url() -> str:
    """The URL of the database the tests are using right now (the test database), for child processes."""
    db = connection.settings_dict
    if db["ENGINE"] == "django.db.backends.sqlite3":
        return f"sqlite:///{db['NAME']}"
    credentials = quote(db["USER"] or "")
    if db["PASSWORD"]:
        credentials += ":" + quote(db["PASSWORD"])
    host = db["HOST"] or "127.0.0.1"
    port = f":{db['PORT']}" if db["PORT"] else ""
    return f"postgres://{credentials}@{host}{port}/{db['NAME']}"


def child_env(**extra: str) -> dict[str, str]:
    """The environment for a manage.py or celery child process that must share the tests' database and broker."""
    env = dict(os.environ)
    env.update({"DATABASE_URL": database_url(), "DEBUG": "1", "PYTHONUNBUFFERED": "1"})
    env.update(extra)
    return env


def make_demo_server(**overrides: Any) -> McpServer:
    """The bundled demo MCP server over stdio: a real process every time it is connected to."""
    fields: dict[str, Any] = {
        "name": "Demo travel server",
        "transport": McpServer.Transport.STDIO,
        "command": PYTHON,
        "args": ["-m", "evalhub.demo_server"],
        "cwd": str(PROJECT_DIR),
        **overrides,
    }
    return McpServer.objects.create(**fields)


def make_scripted_provider(base_url: str, **overrides: Any) -> Provider:
    """A provider pointing at a scripted OpenAI-compatible endpoint (tests/evalhub/model_client/scripted_server.py)."""
    fields: dict[str, Any] = {"name": "Scripted", "model_names": ["gpt-4o"], "timeout": 10.0, **overrides}
    provider = Provider(base_url=base_url, **fields)
    provider.set_secrets(api_key=SCRIPTED_API_KEY, headers={})
    provider.save()
    return provider


def make_scenario(server: McpServer, *, provider: Provider | None = None, **overrides: Any) -> Scenario:
    """A scenario against `server`, on the offline model unless another provider is given."""
    provider = provider or offline_provider()
    fields: dict[str, Any] = {
        "name": "Weather in Paris",
        "prompt": "What's the weather at latitude 48.85, longitude 2.35?",
        "server": server,
        "provider": provider,
        "model": provider.model_names[0],
        "expected_tools": ["get_weather"],
        **overrides,
    }
    return Scenario.objects.create(**fields)
